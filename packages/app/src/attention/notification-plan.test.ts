import { describe, expect, it } from 'vitest';
import type { Attention, ChatEvent, SessionInfo } from '@ptydeck/contract';
import { planChatQuestion, planNotifications, type NotificationContext } from './notification-plan.js';
import { DEFAULT_NOTIFICATION_SETTINGS } from './notification-settings.js';

function session(id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id, source: 'agent', owner: 'conn-1', ownerName: 'codex', title: 'make build', command: 'bash', args: [],
    cwd: '/w', pid: 100, cols: 80, rows: 24, status: 'running', exitCode: null, signal: null,
    createdAt: 1, exitedAt: null, ...overrides,
  };
}
const prompt = (since: number, text = 'Continue? [y/N] '): Attention => ({ kind: 'confirm', prompt: text, since });
const away: NotificationContext = { focused: false, settings: DEFAULT_NOTIFICATION_SETTINGS, handled: new Set() };

/** Feeds successive session lists through the planner as the panel does, carrying `handled` along. */
function replay(steps: Array<{ sessions: SessionInfo[]; focused?: boolean; failures?: boolean; input?: boolean }>) {
  let previous: SessionInfo[] = [];
  let handled: ReadonlySet<string> = new Set();
  const shown: string[][] = [];
  for (const step of steps) {
    const settings = { input: step.input ?? true, failures: step.failures ?? false };
    const plan = planNotifications(previous, step.sessions, { focused: step.focused ?? false, settings, handled });
    shown.push(plan.show.map((n) => n.key));
    handled = plan.handled;
    previous = step.sessions;
  }
  return shown;
}

describe('planNotifications: prompts', () => {
  it('names the agent and the prompt, and the session to bring forward', () => {
    const plan = planNotifications([session('a')], [session('a', { attention: prompt(10) })], away);
    expect(plan.show).toEqual([{ key: 'input:a:10', target: { kind: 'session', id: 'a' }, title: 'codex needs input', body: 'make build: Continue? [y/N]' }]);
  });

  it('notifies once per prompt, however often the same prompt is updated', () => {
    const waiting = session('a', { attention: prompt(10) });
    expect(replay([{ sessions: [session('a')] }, { sessions: [waiting] }, { sessions: [{ ...waiting, cols: 100 }] }, { sessions: [waiting] }])).toEqual([
      [], ['input:a:10'], [], [],
    ]);
  });

  it('notifies again for the next prompt of the same session, and for each session', () => {
    expect(
      replay([
        { sessions: [session('a', { attention: prompt(10) }), session('b')] },
        { sessions: [session('a'), session('b', { attention: prompt(11) })] },
        { sessions: [session('a', { attention: prompt(20) }), session('b', { attention: prompt(11) })] },
      ]),
    ).toEqual([['input:a:10'], ['input:b:11'], ['input:a:20']]);
  });

  it('shows nothing while the developer is looking, and a prompt seen then stays seen after a blur', () => {
    const waiting = session('a', { attention: prompt(10) });
    expect(replay([{ sessions: [waiting], focused: true }, { sessions: [waiting], focused: false }, { sessions: [{ ...waiting, title: 'x' }] }])).toEqual([
      [], [], [],
    ]);
  });

  it('shows nothing with notifications off, nor for a prompt from then when they are turned on', () => {
    const waiting = session('a', { attention: prompt(10) });
    expect(replay([{ sessions: [waiting], input: false }, { sessions: [waiting], input: true }, { sessions: [session('a', { attention: prompt(30) })] }])).toEqual([
      [], [], ['input:a:30'],
    ]);
  });

  it('forgets prompts that are answered, so what it remembers stays bounded', () => {
    const first = planNotifications([], [session('a', { attention: prompt(10) })], away);
    expect([...first.handled]).toEqual(['input:a:10']);
    const answered = planNotifications([], [session('a')], { ...away, handled: first.handled });
    expect(answered.handled.size).toBe(0);
  });

  it('ignores a prompt on an exited session and keeps a long prompt to one short line', () => {
    expect(planNotifications([], [session('a', { status: 'exited', exitCode: 0, attention: prompt(10) })], away).show).toEqual([]);
    const long = planNotifications([], [session('a', { attention: prompt(10, `Password\n for ${'x'.repeat(400)}: `) })], away).show[0]!;
    expect(long.body.startsWith('make build: Password for xxx')).toBe(true);
    expect(long.body.length).toBeLessThan(230);
  });
});

describe('planNotifications: failures (optional)', () => {
  const failed = session('a', { status: 'exited', exitCode: 2, exitedAt: 5 });

  it('is off by default', () => {
    expect(replay([{ sessions: [session('a')] }, { sessions: [failed] }])).toEqual([[], []]);
  });

  it("notifies once when an agent's session exits non-zero, not for a clean exit, a requested close or an old exit", () => {
    const plan = planNotifications([session('a')], [failed], { ...away, settings: { input: true, failures: true } });
    expect(plan.show).toEqual([{ key: 'exit:a', target: { kind: 'session', id: 'a' }, title: "codex's shell failed", body: 'make build: exit 2' }]);
    const on = (steps: SessionInfo[][]) => replay(steps.map((sessions) => ({ sessions, failures: true })));
    expect(on([[session('a')], [failed], [failed]])).toEqual([[], ['exit:a'], []]);
    expect(on([[session('a')], [session('a', { status: 'exited', exitCode: 0 })]])).toEqual([[], []]);
    expect(on([[session('a')], [session('a', { status: 'exited', exitCode: null, signal: 'SIGHUP', closeRequested: true })]])).toEqual([[], []]);
    expect(on([[failed]])).toEqual([[]]);
    expect(on([[session('u', { source: 'user' })], [session('u', { source: 'user', status: 'exited', exitCode: 1 })]])).toEqual([[], []]);
  });

  it('shows nothing while the developer is looking', () => {
    expect(replay([{ sessions: [session('a')] }, { sessions: [failed], failures: true, focused: true }])).toEqual([[], []]);
  });
});

describe('planChatQuestion', () => {
  const question: Extract<ChatEvent, { type: 'question' }> = {
    type: 'question',
    questionId: 'q-1',
    title: 'Run make deploy',
    detail: 'make deploy\n--prod',
    options: [{ id: 'allow', name: 'Allow', kind: 'allow_once' }],
  };
  const chat = { id: 'c-1', agentName: 'claude' };

  it('names the agent and what it asks, and brings its chat forward', () => {
    expect(planChatQuestion(chat, question, away)).toEqual({
      key: 'question:c-1:q-1',
      target: { kind: 'chat', id: 'c-1' },
      title: 'claude asks',
      body: 'Run make deploy: make deploy --prod',
    });
  });

  it('stays quiet while the developer looks, or with input notifications off', () => {
    expect(planChatQuestion(chat, question, { ...away, focused: true })).toBeNull();
    expect(planChatQuestion(chat, question, { ...away, settings: { input: false, failures: true } })).toBeNull();
  });
});
