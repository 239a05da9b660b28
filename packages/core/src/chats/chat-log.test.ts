import { describe, expect, it } from 'vitest';
import { ChatLog } from './chat-log.js';

describe('ChatLog', () => {
  it('merges consecutive chunks of one message, and only those', () => {
    const log = new ChatLog();
    log.append({ type: 'message', role: 'agent', text: 'Hel' });
    log.append({ type: 'message', role: 'agent', text: 'lo' });
    log.append({ type: 'message', role: 'thought', text: 'hm' });
    log.append({ type: 'message', role: 'agent', text: 'A' });
    log.append({ type: 'message', role: 'agent', messageId: 'm2', text: 'B' });
    log.append({ type: 'message', role: 'agent', messageId: 'm2', text: 'C' });
    expect(log.events()).toEqual([
      { type: 'message', role: 'agent', text: 'Hello' },
      { type: 'message', role: 'thought', text: 'hm' },
      { type: 'message', role: 'agent', text: 'A' },
      { type: 'message', role: 'agent', messageId: 'm2', text: 'BC' },
    ]);
  });

  it("folds a tool call's updates into its card, as the app applies them", () => {
    const log = new ChatLog();
    log.append({ type: 'tool', toolCallId: 't', title: 'Run', status: 'pending', content: [{ type: 'text', text: 'a' }] });
    log.append({ type: 'message', role: 'agent', text: 'between' });
    log.append({ type: 'tool', toolCallId: 't', status: 'completed', content: [{ type: 'text', text: 'b' }] });
    expect(log.events()).toEqual([
      { type: 'tool', toolCallId: 't', title: 'Run', status: 'completed', content: [{ type: 'text', text: 'b' }] },
      { type: 'message', role: 'agent', text: 'between' },
    ]);
  });

  it('drops the oldest events past its bounds and says so', () => {
    const log = new ChatLog({ maxEvents: 3 });
    for (let i = 0; i < 5; i++) log.append({ type: 'notice', level: 'info', text: `n${i}` });
    expect(log.events()).toEqual([
      { type: 'notice', level: 'info', text: '2 earlier events of this chat are no longer kept.' },
      { type: 'notice', level: 'info', text: 'n2' },
      { type: 'notice', level: 'info', text: 'n3' },
      { type: 'notice', level: 'info', text: 'n4' },
    ]);
    const small = new ChatLog({ maxChars: 200 });
    small.append({ type: 'message', role: 'user', text: 'q' });
    for (let i = 0; i < 50; i++) small.append({ type: 'message', role: 'agent', text: 'xxxxxxxxxx' });
    // A growing message counts against the budget; the newest event stays even when alone over it.
    expect(small.events().at(-1)).toEqual({ type: 'message', role: 'agent', text: 'x'.repeat(500) });
    expect(small.events()[0]).toMatchObject({ type: 'notice' });
  });
});
