import { describe, expect, it } from 'vitest';
import { continuesMessage, foldToolCall, type ChatMessageEvent } from './chat-fold.js';

const chunk = (role: ChatMessageEvent['role'], messageId?: string): ChatMessageEvent => ({ type: 'message', role, text: 'x', ...(messageId === undefined ? {} : { messageId }) });

describe('continuesMessage', () => {
  it('continues a message of the same role and messageId', () => {
    expect(continuesMessage({ role: 'agent' }, chunk('agent'))).toBe(true);
    expect(continuesMessage({ role: 'agent', messageId: 'm1' }, chunk('agent', 'm1'))).toBe(true);
    // The app's transcript keeps an absent id as null.
    expect(continuesMessage({ role: 'thought', messageId: null }, chunk('thought'))).toBe(true);
  });

  it('starts another message when the role or the messageId changes', () => {
    expect(continuesMessage({ role: 'agent' }, chunk('thought'))).toBe(false);
    expect(continuesMessage({ role: 'agent', messageId: 'm1' }, chunk('agent', 'm2'))).toBe(false);
  });

  it('does not join a message with an id to one without', () => {
    expect(continuesMessage({ role: 'agent' }, chunk('agent', 'm1'))).toBe(false);
    expect(continuesMessage({ role: 'agent', messageId: null }, chunk('agent', 'm1'))).toBe(false);
    expect(continuesMessage({ role: 'agent', messageId: 'm1' }, chunk('agent'))).toBe(false);
  });
});

describe('foldToolCall', () => {
  it('replaces the fields an update carries and keeps the others', () => {
    const call = foldToolCall(
      { type: 'tool', toolCallId: 't', title: 'Run', kind: 'execute', status: 'pending', content: [{ type: 'text', text: 'a' }], locations: [{ path: '/w' }] },
      { type: 'tool', toolCallId: 't', status: 'completed', content: [{ type: 'terminal', sessionId: 's1' }] },
    );
    expect(call).toEqual({
      type: 'tool', toolCallId: 't', title: 'Run', kind: 'execute', status: 'completed',
      content: [{ type: 'terminal', sessionId: 's1' }], locations: [{ path: '/w' }],
    });
  });

  it('takes a field an update leaves undefined as not carried', () => {
    const call = foldToolCall({ type: 'tool', toolCallId: 't', title: 'Run' }, { type: 'tool', toolCallId: 't', title: undefined, status: 'failed' });
    expect(call).toEqual({ type: 'tool', toolCallId: 't', title: 'Run', status: 'failed' });
  });
});
