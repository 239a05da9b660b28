import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatInfo } from '@ptydeck/contract';
import { applyEvent, chatReducer, emptyChat } from './chat-reducer.js';
import { initialChatsState, type ChatAction, type ChatsState } from './chat-state.js';

let clock = 1_000;
function info(id: string, overrides: Partial<ChatInfo> = {}): ChatInfo {
  return { id, agentName: 'demo', owner: `chat:${id}`, cwd: '/w', state: 'ready', error: null, createdAt: clock++, ...overrides };
}
const run = (...actions: ChatAction[]): ChatsState => actions.reduce(chatReducer, initialChatsState);
const event = (chatId: string, e: ChatEvent): ChatAction => ({ type: 'event', chatId, event: e });
const events = (...list: ChatEvent[]) => list.reduce(applyEvent, emptyChat(info('c')));

describe('chat events', () => {
  it('merges consecutive chunks of the same role into one message', () => {
    const chat = events(
      { type: 'message', role: 'thought', text: 'Think' },
      { type: 'message', role: 'thought', text: 'ing' },
      { type: 'message', role: 'agent', text: 'You ' },
      { type: 'message', role: 'agent', text: 'said' },
      { type: 'message', role: 'user', text: 'hi' },
      { type: 'message', role: 'agent', text: 'again' },
    );
    expect(chat.entries.map((entry) => (entry.kind === 'message' ? [entry.role, entry.text] : entry.kind))).toEqual([
      ['thought', 'Thinking'],
      ['agent', 'You said'],
      ['user', 'hi'],
      ['agent', 'again'],
    ]);
  });

  it('starts a new message when the messageId changes', () => {
    const chat = events(
      { type: 'message', role: 'agent', messageId: 'm1', text: 'one' },
      { type: 'message', role: 'agent', messageId: 'm1', text: '+' },
      { type: 'message', role: 'agent', messageId: 'm2', text: 'two' },
    );
    expect(chat.entries.map((entry) => entry.kind === 'message' && entry.text)).toEqual(['one+', 'two']);
  });

  it('keeps a message with an id apart from one without, as the core\'s log does for a reload', () => {
    const chat = events(
      { type: 'message', role: 'agent', text: 'A' },
      { type: 'message', role: 'agent', messageId: 'm2', text: 'B' },
      { type: 'message', role: 'agent', messageId: 'm2', text: 'C' },
      { type: 'message', role: 'agent', text: 'D' },
    );
    expect(chat.entries.map((entry) => entry.kind === 'message' && [entry.messageId, entry.text])).toEqual([[null, 'A'], ['m2', 'BC'], [null, 'D']]);
  });

  it('creates a tool card once and updates only the fields an update carries', () => {
    const chat = events(
      { type: 'tool', toolCallId: 't1', title: 'Run ls', kind: 'execute', status: 'pending', locations: [{ path: '/w' }] },
      { type: 'message', role: 'agent', text: 'between' },
      { type: 'tool', toolCallId: 't1', status: 'in_progress', content: [{ type: 'terminal', sessionId: 's1' }] },
      { type: 'tool', toolCallId: 't1', status: 'completed', content: [{ type: 'text', text: 'done' }] },
    );
    expect(chat.entries).toHaveLength(2);
    expect(chat.entries[0]).toMatchObject({
      kind: 'tool', toolCallId: 't1', title: 'Run ls', toolKind: 'execute', status: 'completed',
      content: [{ type: 'text', text: 'done' }], locations: [{ path: '/w' }],
    });
  });

  it('gives a card without a title or kind readable defaults', () => {
    const chat = events({ type: 'tool', toolCallId: 't9' });
    expect(chat.entries[0]).toMatchObject({ title: 't9', toolKind: 'other', status: 'pending', content: [], locations: [] });
  });

  it('replaces the whole plan on every update', () => {
    const chat = events(
      { type: 'plan', entries: [{ content: 'a', priority: 'high', status: 'pending' }, { content: 'b', priority: 'low', status: 'pending' }] },
      { type: 'plan', entries: [{ content: 'a', priority: 'high', status: 'completed' }] },
    );
    expect(chat.plan).toEqual([{ content: 'a', priority: 'high', status: 'completed' }]);
    expect(chat.entries).toEqual([]);
  });

  it('keeps questions open until answered, by anyone', () => {
    const options = [{ id: 'allow', name: 'Allow', kind: 'allow_once' as const }];
    const chat = events(
      { type: 'question', questionId: 'q1', title: 'Run ls?', options },
      { type: 'question', questionId: 'q2', title: 'Write f?', options },
      { type: 'answered', questionId: 'q1', optionId: 'allow' },
    );
    expect(chat.questions.map((question) => question.questionId)).toEqual(['q2']);
    expect(applyEvent(chat, { type: 'answered', questionId: 'nope', optionId: null })).toBe(chat);
  });

  it('takes the state from a state event and notes a turn that did not end normally', () => {
    const normal = events({ type: 'state', info: info('c', { state: 'ready' }), stopReason: 'end_turn' });
    expect(normal.entries).toEqual([]);
    const cancelled = events(
      { type: 'state', info: info('c', { state: 'prompting' }) },
      { type: 'state', info: info('c', { state: 'ready' }), stopReason: 'cancelled' },
    );
    expect(cancelled.info.state).toBe('ready');
    expect(cancelled.entries).toEqual([{ kind: 'turn-end', key: 'e0', stopReason: 'cancelled' }]);
  });

  it('closes every question when the chat ends', () => {
    const chat = events(
      { type: 'question', questionId: 'q1', title: 'Run?', options: [{ id: 'a', name: 'Allow', kind: 'allow_once' }] },
      { type: 'state', info: info('c', { state: 'ended', error: 'agent exited with code 7' }) },
    );
    expect(chat.questions).toEqual([]);
    expect(chat.info.error).toBe('agent exited with code 7');
  });

  it('appends notices with keys that never repeat', () => {
    const chat = events({ type: 'notice', level: 'error', text: 'boom' }, { type: 'notice', level: 'info', text: 'wrote f' });
    expect(chat.entries.map((entry) => entry.key)).toEqual(['e0', 'e1']);
    expect(chat.entries[0]).toMatchObject({ kind: 'notice', level: 'error', text: 'boom' });
  });

  it('keeps the terminal sessions each card shows in its content, beside its text', () => {
    const chat = events(
      { type: 'tool', toolCallId: 't1', content: [{ type: 'terminal', sessionId: 's1' }] },
      { type: 'tool', toolCallId: 't2', content: [{ type: 'text', text: 'x' }, { type: 'terminal', sessionId: 's2' }] },
    );
    expect(chat.entries).toMatchObject([
      { kind: 'tool', toolCallId: 't1', content: [{ type: 'terminal', sessionId: 's1' }] },
      { kind: 'tool', toolCallId: 't2', content: [{ type: 'text', text: 'x' }, { type: 'terminal', sessionId: 's2' }] },
    ]);
  });
});

describe('chatReducer', () => {
  it('replays chat.list into chats, merged from their events, oldest first', () => {
    const [a, b] = [info('a'), info('b')];
    const state = run({
      type: 'list',
      chats: [
        { info: b, events: [] },
        { info: a, events: [{ type: 'message', role: 'user', text: 'hi' }, { type: 'message', role: 'agent', text: 'yo' }] },
      ],
    });
    expect(state.chats.map((chat) => chat.info.id)).toEqual(['a', 'b']);
    expect(state.chats[0]!.entries).toHaveLength(2);
    expect(state.activeId).toBe('b');
  });

  it('a second chat.list (reconnect) replaces the chats and keeps the active one if it still exists', () => {
    const [a, b] = [info('a'), info('b')];
    const before = run({ type: 'list', chats: [{ info: a, events: [] }, { info: b, events: [] }] }, { type: 'select', chatId: 'a' });
    const again = chatReducer(before, { type: 'list', chats: [{ info: a, events: [{ type: 'message', role: 'agent', text: 'x' }] }] });
    expect(again.activeId).toBe('a');
    expect(again.chats).toHaveLength(1);
    expect(again.chats[0]!.entries).toHaveLength(1);
    expect(chatReducer(before, { type: 'list', chats: [] }).activeId).toBeNull();
  });

  it('brings the chat this panel opened to the front, not one another window opened', () => {
    let state = run({ type: 'opened', info: info('mine0') }, { type: 'select', chatId: null }, { type: 'open-requested', requestId: 'r1', agent: 'demo' });
    expect(state.openings).toEqual([{ requestId: 'r1', agent: 'demo', error: null }]);
    state = chatReducer(state, { type: 'opened', info: info('other') });
    expect(state.activeId).toBeNull();
    state = chatReducer(state, { type: 'opened', info: info('mine', { state: 'starting' }), requestId: 'r1' });
    expect(state.activeId).toBe('mine');
    expect(state.openings).toEqual([]);
    expect(state.chats.map((chat) => chat.info.id)).toEqual(['mine0', 'other', 'mine']);
  });

  it('keeps a refused open with its reason until dismissed', () => {
    let state = run({ type: 'open-requested', requestId: 'r1', agent: 'demo' }, { type: 'open-failed', requestId: 'r1', message: 'no such agent' });
    expect(state.openings).toEqual([{ requestId: 'r1', agent: 'demo', error: 'no such agent' }]);
    expect(chatReducer(state, { type: 'open-failed', requestId: 'other', message: 'x' })).toBe(state);
    state = chatReducer(state, { type: 'dismiss-opening', requestId: 'r1' });
    expect(state.openings).toEqual([]);
  });

  it('routes events to their chat and ignores events for unknown chats', () => {
    const state = run({ type: 'opened', info: info('a') }, event('a', { type: 'message', role: 'agent', text: 'x' }));
    expect(state.chats[0]!.entries).toHaveLength(1);
    expect(chatReducer(state, event('zzz', { type: 'message', role: 'agent', text: 'x' }))).toBe(state);
  });

  it('on chat.closed drops the chat and moves to a neighbour', () => {
    const state = run({ type: 'opened', info: info('a') }, { type: 'opened', info: info('b') }, { type: 'opened', info: info('c') }, { type: 'select', chatId: 'b' });
    const closed = chatReducer(state, { type: 'closed', chatId: 'b' });
    expect(closed.chats.map((chat) => chat.info.id)).toEqual(['a', 'c']);
    expect(closed.activeId).toBe('c');
    expect(chatReducer(run({ type: 'opened', info: info('x') }), { type: 'closed', chatId: 'x' }).activeId).toBeNull();
    expect(chatReducer(closed, { type: 'closed', chatId: 'nope' })).toBe(closed);
  });

  it('keeps the agents catalog with its config error', () => {
    const catalog = { agents: [], configPath: '/home/me/.config/ptydeck/agents.json', configError: 'not JSON' };
    expect(run({ type: 'agents', catalog }).catalog).toEqual(catalog);
  });

  it('selects only chats that exist', () => {
    const state = run({ type: 'opened', info: info('a') });
    expect(chatReducer(state, { type: 'select', chatId: 'missing' })).toBe(state);
  });
});
