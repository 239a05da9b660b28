import { describe, expect, it } from 'vitest';
import { PanelClientMessage, PanelServerMessage } from './panel-protocol.js';

describe('chat messages on the panel socket', () => {
  it('parses chat requests as panel client messages', () => {
    const open = PanelClientMessage.parse({ type: 'chat.open', requestId: 'r1', agent: 'scripted' });
    expect(open).toEqual({ type: 'chat.open', requestId: 'r1', agent: 'scripted' });
    expect(PanelClientMessage.safeParse({ type: 'chat.prompt', chatId: 'c1', text: '' }).success).toBe(false);
    expect(PanelClientMessage.safeParse({ type: 'chat.answer', chatId: 'c1', questionId: 'q', optionId: null }).success).toBe(true);
  });

  it('parses chat events as panel server messages and rejects a question without options', () => {
    const event = { type: 'chat.event', chatId: 'c1', event: { type: 'tool', toolCallId: 't1', content: [{ type: 'terminal', sessionId: 's1' }] } };
    expect(PanelServerMessage.parse(event)).toEqual(event);
    const question = { type: 'chat.event', chatId: 'c1', event: { type: 'question', questionId: 'q', title: 'Run it?', options: [] } };
    expect(PanelServerMessage.safeParse(question).success).toBe(false);
  });
});
