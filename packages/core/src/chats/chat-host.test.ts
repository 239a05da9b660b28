import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatEvent } from '@ptydeck/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit } from '../testing/session-waits.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { ChatBindings } from './chat-bindings.js';
import { ChatHost } from './chat-host.js';
import { ChatError } from './chat-session.js';
import { ChatEvents } from '../testing/chat-waits.js';
import { until } from '../testing/poll-until.js';

const DEMO_AGENT = fileURLToPath(new URL('../testing/demo-agent.mjs', import.meta.url));
const RAW_AGENT = fileURLToPath(new URL('../testing/raw-agent.mjs', import.meta.url));

let dir: string;
let configDir: string;
let env: Record<string, string | undefined>;
let service: PtyService;
let host: ChatHost;
const watchers: ChatEvents[] = [];

beforeAll(() => {
  env = isolatedEnv();
  dir = fileTempDir('ptydeck-chat-host-');
  configDir = join(dir, 'config');
  mkdirSync(configDir);
  writeFileSync(join(configDir, 'agents.json'), JSON.stringify({
      agents: [
        { name: 'demo', command: process.execPath, args: [DEMO_AGENT] },
        { name: 'raw', command: process.execPath, args: [RAW_AGENT] },
        { name: 'missing', command: '/nonexistent/acp-agent' },
        { name: 'mute', command: process.execPath, args: ['-e', 'process.stderr.write("no ACP here\\n")'] },
      ],
    }),);
  service = createPtyService({ env, killGraceMs: 1000 });
  host = new ChatHost({ service, configDir, launchDir: dir, env, killGraceMs: 1000 });
});
afterEach(() => {
  for (const watcher of watchers.splice(0)) watcher.dispose();
});
afterAll(async () => {
  await host.dispose();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a chat with the demo agent (or another) and waits until it is ready. */
async function openChat(agent = 'demo'): Promise<{ id: string; owner: string; events: ChatEvents }> {
  let id: string | undefined;
  const events = new ChatEvents(host.onEvent, () => id);
  watchers.push(events);
  const info = await host.open(agent);
  id = info.id;
  expect(info).toMatchObject({ agentName: agent, state: 'starting', cwd: dir, error: null });
  await events.state('ready');
  return { id, owner: info.owner, events };
}

/** Sends a prompt and resolves with the state event that ends the turn. */
async function turn(chat: { id: string; events: ChatEvents }, text: string, during?: (from: number) => Promise<void>) {
  const from = chat.events.seen.length;
  host.prompt(chat.id, text);
  await chat.events.state('prompting', from);
  await during?.(from);
  return { end: await chat.events.state('ready', from), from };
}

const isQuestion = (event: ChatEvent) => event.type === 'question';

describe('a chat with the demo agent', () => {
  it('answers a plain prompt with a thought, a plan and its message in chunks', async () => {
    const chat = await openChat();
    const { end, from } = await turn(chat, 'hello there');
    expect(end.stopReason).toBe('end_turn');
    const events = chat.events.seen.slice(from);
    expect(events).toContainEqual(expect.objectContaining({ type: 'message', role: 'user', text: 'hello there' }));
    expect(events).toContainEqual({ type: 'message', role: 'thought', text: 'Thinking about: hello there' });
    expect(events.filter((e) => e.type === 'plan').at(-1)).toEqual({
      type: 'plan',
      entries: [
        { content: 'Read the prompt', priority: 'high', status: 'completed' },
        { content: 'Answer it', priority: 'medium', status: 'completed' },
      ],
    });
    expect(chat.events.agentText(from)).toBe('You said: hello there');
    // The replay log merged the chunks into one message.
    const replay = host.list().find((c) => c.info.id === chat.id)!;
    expect(replay.events.filter((e) => e.type === 'message' && e.role === 'agent')).toEqual([{ type: 'message', role: 'agent', text: 'You said: hello there' }]);
    expect(replay.info.state).toBe('ready');
  });

  it('asks before running a command, runs it in a PTY under the chat, and shows the terminal in the card', async () => {
    const chat = await openChat();
    const { end, from } = await turn(chat, 'run echo ran-$((6*7)); exit 3', async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      expect(asked).toMatchObject({ title: 'Run echo ran-$((6*7)); exit 3', detail: 'echo ran-$((6*7)); exit 3', toolCallId: expect.any(String) });
      // The card exists before its question.
      const card = chat.events.seen.findIndex((e) => e.type === 'tool' && e.toolCallId === asked.toolCallId);
      expect(card).toBeGreaterThanOrEqual(0);
      expect(card).toBeLessThan(chat.events.seen.indexOf(asked));
      expect(asked.options.map((o) => [o.id, o.kind])).toEqual([
        ['allow', 'allow_once'],
        ['reject', 'reject_once'],
      ]);
      expect(() => host.answer(chat.id, asked.questionId, 'nope')).toThrow(ChatError);
      host.answer(chat.id, asked.questionId, 'allow');
      expect(() => host.answer(chat.id, asked.questionId, 'allow')).toThrow(/no open question/);
    });
    expect(end.stopReason).toBe('end_turn');
    const events = chat.events.seen.slice(from);
    expect(events).toContainEqual(expect.objectContaining({ type: 'answered', optionId: 'allow' }));
    const terminal = events.flatMap((e) => (e.type === 'tool' ? (e.content ?? []) : [])).find((c) => c.type === 'terminal');
    expect(terminal).toBeDefined();
    const sessionId = (terminal as { sessionId: string }).sessionId;
    expect(service.get(sessionId)).toMatchObject({ source: 'agent', owner: chat.owner, ownerName: 'demo', status: 'exited', exitCode: 3 });
    // Released, yet its output stays readable for the card.
    expect(readAll(service, sessionId).toString()).toContain('ran-42');
    expect(chat.events.agentText(from)).toBe('Exit code 3');
    expect(events.filter((e) => e.type === 'tool').at(-1)).toMatchObject({ status: 'completed' });
  });

  it('runs nothing when the developer rejects or dismisses', async () => {
    const chat = await openChat();
    const created: string[] = [];
    const off = service.on('pty.created', (event) => created.push(event.info.id));
    for (const answer of ['reject', null]) {
      const { from } = await turn(chat, 'run touch should-not-exist', async (start) => {
        const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
        host.answer(chat.id, asked.questionId, answer);
      });
      expect(chat.events.agentText(from)).toBe('Not run.');
    }
    off();
    expect(created).toEqual([]);
  });

  it('cancel answers the open question as cancelled and ends the turn as cancelled', async () => {
    const chat = await openChat();
    const { end, from } = await turn(chat, 'run echo never', async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      await host.cancel(chat.id);
      await chat.events.next((e) => e.type === 'answered' && e.questionId === asked.questionId && e.optionId === null, { from: start });
    });
    expect(end.stopReason).toBe('cancelled');
    expect(chat.events.agentText(from)).toBe('Not run.');
  });

  it('a turn waiting on nothing ends only when cancelled', async () => {
    const chat = await openChat();
    const { end } = await turn(chat, 'wait', async () => {
      expect(() => host.prompt(chat.id, 'again')).toThrow(/already running/);
      await host.cancel(chat.id);
    });
    expect(end.stopReason).toBe('cancelled');
  });

  it('writes a file only once allowed, and remembers "allow for this chat"', async () => {
    const chat = await openChat();
    const file = join(dir, 'written.txt');
    writeFileSync(file, 'before');
    const first = await turn(chat, `write ${file} after`, async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      expect(asked.options).toEqual([
        { id: 'allow_once', name: 'Allow', kind: 'allow_once' },
        { id: 'allow_always', name: 'Allow for this chat', kind: 'allow_always' },
        { id: 'reject_once', name: 'Reject', kind: 'reject_once' },
      ]);
      expect(readFileSync(file, 'utf8')).toBe('before');
      const card = chat.events.seen.slice(start).find((e) => e.type === 'tool');
      expect(asked).toMatchObject({ title: `Allow the agent to write ${file}?`, detail: file, toolCallId: (card as { toolCallId: string }).toolCallId });
      host.answer(chat.id, asked.questionId, 'reject_once');
    });
    expect(chat.events.agentText(first.from)).toContain('the developer declined it');
    expect(readFileSync(file, 'utf8')).toBe('before');
    const diff = chat.events.seen.slice(first.from).find((e) => e.type === 'tool' && e.content?.[0]?.type === 'diff');
    expect(diff).toMatchObject({ kind: 'edit', content: [{ type: 'diff', path: file, oldText: 'before', newText: 'after' }] });

    await turn(chat, `write ${file} second`, async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      host.answer(chat.id, asked.questionId, 'allow_always');
    });
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(chat.events.seen).toContainEqual({ type: 'notice', level: 'info', text: `The agent wrote ${file}` });
    const third = await turn(chat, `write ${file} third`);
    expect(chat.events.seen.slice(third.from).some((e) => e.type === 'question')).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('third');
  });

  it("does not ask again for a write the developer allowed in the agent's own question about that edit", async () => {
    const chat = await openChat();
    const file = join(dir, 'edited.txt');
    writeFileSync(file, 'before');
    const allowed = await turn(chat, `edit ${file} after`, async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      expect(asked.title).toBe(`Write ${file}`);
      host.answer(chat.id, asked.questionId, 'allow');
    });
    expect(chat.events.seen.slice(allowed.from).filter((e) => e.type === 'question')).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe('after');

    // The allowance was for that edit only: a plain write afterwards is asked about.
    await turn(chat, `write ${file} later`, async (start) => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
      expect(asked.title).toBe(`Allow the agent to write ${file}?`);
      host.answer(chat.id, asked.questionId, 'reject_once');
    });
    expect(readFileSync(file, 'utf8')).toBe('after');
  });

  describe('an edit allowed in the agent\'s own question covers exactly what its card showed', () => {
    type Question = Extract<ChatEvent, { type: 'question' }>;
    const allowOptions = [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ];

    /**
     * Plays a scripted edit (see demo-agent.mjs), answers the agent's question with
     * `choose`, then answers each of ptydeck's own write questions with Reject.
     * Resolves with the titles of ptydeck's questions and what the agent reported.
     */
    async function scripted(plan: object, choose: string) {
      const chat = await openChat();
      onTestFinished(() => host.close(chat.id));
      const asked: string[] = [];
      const { from } = await turn(chat, `script ${JSON.stringify(plan)}`, async (start) => {
        const agentsQuestion = await chat.events.next<Question>(isQuestion, { from: start });
        host.answer(chat.id, agentsQuestion.questionId, choose);
        let seen = chat.events.seen.indexOf(agentsQuestion) + 1;
        // ptydeck's questions, until the agent reports (the turn's last message).
        for (;;) {
          const next = await chat.events.next((event) => isQuestion(event) || (event.type === 'message' && event.role === 'agent'), { from: seen });
          seen = chat.events.seen.indexOf(next) + 1;
          if (next.type !== 'question') return;
          asked.push(`${next.title} | ${next.detail}`);
          host.answer(chat.id, next.questionId, 'reject_once');
        }
      });
      return { asked, report: JSON.parse(chat.events.agentText(from)) as { selected: string; writes: string[] } };
    }

    it('writes the shown path with the shown content without asking again, once', async () => {
      const file = join(dir, 'script-shown.txt');
      const { asked, report } = await scripted({ show: [{ path: file, text: 'A' }], options: allowOptions, write: [{ path: file, text: 'A' }, { path: file, text: 'A' }] }, 'allow');
      expect(report.writes[0]).toBe('ok');
      // The same write again is a second write: asked about.
      expect(asked).toEqual([`Allow the agent to write ${file}? | ${file}`]);
      expect(readFileSync(file, 'utf8')).toBe('A');
    });

    it('asks about a diff added to the card after the answer, and about other content than shown', async () => {
      const shown = join(dir, 'script-a.txt');
      const sneaked = join(dir, 'script-sneaked.txt');
      const { asked, report } = await scripted(
        { show: [{ path: shown, text: 'A' }], options: allowOptions, after: [{ path: sneaked, text: 'B' }], write: [{ path: sneaked, text: 'B' }, { path: shown, text: 'EVIL' }] },
        'allow',
      );
      expect(asked).toEqual([`Allow the agent to write ${sneaked}? | ${sneaked}`, `Allow the agent to write ${shown}? | ${shown}`]);
      expect(report.writes.every((outcome) => outcome.includes('the developer declined it'))).toBe(true);
      expect(existsSync(sneaked)).toBe(false);
      expect(existsSync(shown)).toBe(false);
    });

    it('asks about what the card showed as the question came when the agent changed the card before the answer', async () => {
      const file = join(dir, 'script-swapped.txt');
      const chat = await openChat();
      onTestFinished(() => host.close(chat.id));
      const asked: string[] = [];
      const plan = { show: [{ path: file, text: 'EVIL' }], options: allowOptions, during: [{ path: file, text: 'fine' }], write: [{ path: file, text: 'EVIL' }] };
      const { from } = await turn(chat, `script ${JSON.stringify(plan)}`, async (start) => {
        const agentsQuestion = await chat.events.next<Question>(isQuestion, { from: start });
        // The developer answers once the card shows what the agent changed it to: 'fine'.
        await chat.events.next(
          (event) => event.type === 'tool' && event.content?.some((item) => item.type === 'diff' && item.newText === 'fine') === true,
          { from: chat.events.seen.indexOf(agentsQuestion) },
        );
        host.answer(chat.id, agentsQuestion.questionId, 'allow');
        const next = await chat.events.next((event) => isQuestion(event) || (event.type === 'message' && event.role === 'agent'), { from: chat.events.seen.indexOf(agentsQuestion) + 1 });
        if (next.type !== 'question') return;
        asked.push(`${next.title} | ${next.detail}`);
        host.answer(chat.id, next.questionId, 'reject_once');
      });
      const report = JSON.parse(chat.events.agentText(from)) as { selected: string; writes: string[] };
      expect(report.selected).toBe('allow');
      expect(asked).toEqual([`Allow the agent to write ${file}? | ${file}`]);
      expect(existsSync(file)).toBe(false);
    });

    it('asks when the option chosen says one thing in its label and another in its kind', async () => {
      const file = join(dir, 'script-mislabelled.txt');
      const { asked, report } = await scripted(
        {
          show: [{ path: file, text: 'A' }],
          options: [
            { optionId: 'sly', name: 'Reject', kind: 'allow_once' },
            { optionId: 'allow', name: 'Allow', kind: 'reject_once' },
          ],
          write: [{ path: file, text: 'A' }],
        },
        'sly',
      );
      expect(report.selected).toBe('sly');
      expect(asked).toEqual([`Allow the agent to write ${file}? | ${file}`]);
      expect(existsSync(file)).toBe(false);
    });
  });

  it('keeps "allow for this chat" to the chat\'s directory, and asks about a path that leads elsewhere showing where', async () => {
    const chat = await openChat();
    onTestFinished(() => host.close(chat.id));
    const outside = fileTempDir('ptydeck-chat-outside-');
    const link = join(dir, 'link-out');
    symlinkSync(outside, link);
    const allowOnce = (from: number) => async () => {
      const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from });
      host.answer(chat.id, asked.questionId, 'allow_always');
    };
    await turn(chat, `write ${join(dir, 'inside.txt')} one`, (start) => allowOnce(start)());
    // Inside the directory: no question any more.
    const inside = await turn(chat, `write ${join(dir, 'sub', 'inside.txt')} two`);
    expect(chat.events.seen.slice(inside.from).some(isQuestion)).toBe(false);
    expect(readFileSync(join(dir, 'sub', 'inside.txt'), 'utf8')).toBe('two');

    // Out through `..` and through a link: asked, with the resolved path.
    const viaDots = `${dir}/../${basename(outside)}/dots.txt`;
    const viaLink = join(link, 'linked.txt');
    for (const [named, resolved] of [
      [viaDots, join(outside, 'dots.txt')],
      [viaLink, join(outside, 'linked.txt')],
    ] as const) {
      await turn(chat, `write ${named} out`, async (start) => {
        const asked = await chat.events.next<Extract<ChatEvent, { type: 'question' }>>(isQuestion, { from: start });
        expect(asked).toMatchObject({ title: `Allow the agent to write ${resolved}?`, detail: `${resolved} (the agent named ${named})` });
        host.answer(chat.id, asked.questionId, 'reject_once');
      });
      expect(existsSync(resolved)).toBe(false);
    }
    rmSync(outside, { recursive: true, force: true });
  });

  it("shows a command the agent runs itself as a read-only tab tagged with the agent, which refuses input", async () => {
    const chat = await openChat();
    const { from } = await turn(chat, 'own printf "own-%s\\n" output; exit 5');
    const card = chat.events.seen.slice(from).find((e) => e.type === 'tool' && e.content?.some((c) => c.type === 'terminal'));
    const sessionId = (card as Extract<ChatEvent, { type: 'tool' }>).content!.find((c) => c.type === 'terminal')!;
    const id = (sessionId as { sessionId: string }).sessionId;
    await waitForExit(service, id);
    expect(service.get(id)).toMatchObject({ readOnly: true, source: 'agent', owner: chat.owner, ownerName: 'demo', pid: 0, status: 'exited', exitCode: 5 });
    expect(readAll(service, id).toString()).toBe('own-output\r\n');
    expect(() => service.write(id, 'x')).toThrow(expect.objectContaining({ code: 'read_only' }) as unknown as PtyError);
    expect(chat.events.agentText(from)).toBe('Exit code 5');
  });

  it('reports bad requests from the agent with JSON-RPC errors and keeps serving it', async () => {
    const chat = await openChat();
    const { from } = await turn(chat, 'bad');
    const seen = JSON.parse(chat.events.agentText(from));
    expect(seen.unknownSession).toMatchObject({ code: -32002 });
    expect(seen.relativePath).toMatchObject({ code: -32602, message: expect.stringContaining('must be absolute') });
    expect(seen.unknownTerminal).toMatchObject({ code: -32002, message: expect.stringContaining('Terminal not found') });
    expect(seen.relativeCwd).toMatchObject({ code: -32602 });
    expect(seen.missingCommand).toMatchObject({ code: -32602 });
    expect(seen.unknownMethod).toMatchObject({ code: -32601 });
    const again = await turn(chat, 'still there?');
    expect(chat.events.agentText(again.from)).toBe('You said: still there?');
  });

  it('answers malformed JSON-RPC frames with JSON-RPC errors, and keeps the chat', async () => {
    const chat = await openChat('raw');
    const { from } = await turn(chat, 'probe');
    const seen = JSON.parse(chat.events.agentText(from));
    expect(seen).toMatchObject({
      notJson: { code: -32700 },
      notAnObject: expect.objectContaining({ code: expect.any(Number) }),
      wrongParamTypes: { code: -32602 },
      missingParams: { code: -32602 },
      unknownMethod: { code: -32601 },
      agentMethodSentToClient: { code: -32601 },
      outputBeforeCreate: { code: -32002 },
    });
    const again = await turn(chat, 'probe');
    expect(again.end.stopReason).toBe('end_turn');
  });

  it('reports an agent that dies, with its last words', async () => {
    const chat = await openChat();
    const from = chat.events.seen.length;
    host.prompt(chat.id, 'die');
    const ended = await chat.events.state('ended', from);
    expect(ended.info.error).toContain('exited with code 7');
    expect(ended.info.error).toContain('demo agent: dying on request');
    expect(chat.events.seen.slice(from)).toContainEqual(expect.objectContaining({ type: 'notice', level: 'error', text: expect.stringContaining('dying on request') }));
    expect(() => host.prompt(chat.id, 'hello')).toThrow(/ended/);
  });

  it("ends the terminals of an agent that dies mid-command", async () => {
    const chat = await openChat();
    const from = chat.events.seen.length;
    host.prompt(chat.id, 'die sleep 600');
    const card = await chat.events.next((e) => e.type === 'tool' && e.content?.[0]?.type === 'terminal', { from });
    const sessionId = ((card as Extract<ChatEvent, { type: 'tool' }>).content![0] as { sessionId: string }).sessionId;
    await chat.events.state('ended', from);
    expect(await waitForExit(service, sessionId)).toMatchObject({ exitCode: null, signal: 'SIGHUP' });
    expect(service.get(sessionId)).toMatchObject({ owner: chat.owner, closeRequested: true });
  });

  it('bounds the chats open at once', async () => {
    const small = new ChatHost({ service, configDir, launchDir: dir, env, killGraceMs: 1000, maxChats: 1 });
    try {
      const first = await small.open('demo');
      await expect(small.open('demo')).rejects.toThrow(expect.objectContaining({ code: 'chat_limit' }) as unknown as Error);
      await small.close(first.id);
      await expect(small.open('demo')).resolves.toMatchObject({ state: 'starting' });
    } finally {
      await small.dispose();
    }
  });

  it('ends a chat whose agent cannot start, or exits before its session exists, saying why', async () => {
    for (const [agent, why] of [
      ['missing', /cannot start agent 'missing' \(\/nonexistent\/acp-agent\): spawn \/nonexistent\/acp-agent ENOENT/],
      ['mute', /exited \(code 0\) during initialize: no ACP here/],
    ] as const) {
      let id: string | undefined;
      const events = new ChatEvents(host.onEvent, () => id);
      watchers.push(events);
      id = (await host.open(agent)).id;
      const ended = await events.state('ended');
      expect(ended.info.error).toMatch(why);
      expect(events.seen).toContainEqual(expect.objectContaining({ type: 'notice', level: 'error', text: expect.stringMatching(why) }));
      await host.close(id);
    }
  });

  it('refuses unknown agents and bad working directories with clear errors', async () => {
    await expect(host.open('nobody')).rejects.toThrow(/no agent named 'nobody'; agents: 'demo'/);
    await expect(host.open('demo', 'relative')).rejects.toThrow(/must be an absolute path/);
    await expect(host.open('demo', join(dir, 'missing'))).rejects.toThrow(/not an existing directory/);
  });

  it("binds each chat's MCP server with a credential of its own, revoked when the chat closes", async () => {
    const issued: string[] = [];
    const bindings = new (class extends ChatBindings {
      override issue(binding: Parameters<ChatBindings['issue']>[0]): string {
        const secret = super.issue(binding);
        issued.push(secret);
        return secret;
      }
    })();
    const bound = new ChatHost({ service, configDir, launchDir: dir, env, killGraceMs: 1000, mcp: { launch: { command: 'true', args: [] }, bindings } });
    let secondSecret: string | undefined;
    try {
      // Opened together: either chat may be issued its credential first.
      const [first, second] = await Promise.all([bound.open('demo'), bound.open('demo')]);
      expect(issued).toHaveLength(2);
      expect(first!.owner).not.toBe(second!.owner);
      const credentialOf = (owner: string) => issued.filter((secret) => bindings.resolve(secret)?.owner === owner);
      const [firstSecret] = credentialOf(first!.owner);
      [secondSecret] = credentialOf(second!.owner);
      // One each, and never the same one.
      expect(credentialOf(first!.owner)).toHaveLength(1);
      expect(credentialOf(second!.owner)).toHaveLength(1);
      // Each bound to its own agent process, once that started.
      await until(() => bindings.resolve(firstSecret!)?.agentPid !== undefined && bindings.resolve(secondSecret!)?.agentPid !== undefined, 'both agents have started');
      expect(bindings.resolve(firstSecret!)).toEqual({ owner: first!.owner, agentName: 'demo', cwd: dir, agentPid: expect.any(Number) });
      expect(bindings.resolve(secondSecret!)).toEqual({ owner: second!.owner, agentName: 'demo', cwd: dir, agentPid: expect.any(Number) });
      expect(bindings.resolve(firstSecret!)!.agentPid).not.toBe(bindings.resolve(secondSecret!)!.agentPid);
      await bound.close(first!.id);
      expect(bindings.resolve(firstSecret!)).toBeUndefined();
      expect(bindings.resolve(secondSecret!)).toMatchObject({ owner: second!.owner, agentName: 'demo', cwd: dir });
    } finally {
      await bound.dispose();
    }
    expect(secondSecret).toBeDefined();
    expect(bindings.resolve(secondSecret!)).toBeUndefined();
  });

  it('closing a chat ends its agent and forgets it', async () => {
    const chat = await openChat();
    const closed = new Promise<string>((resolve) => {
      const off = host.onClosed((id) => {
        off();
        resolve(id);
      });
    });
    await host.close(chat.id);
    expect(await closed).toBe(chat.id);
    expect(host.list().some((c) => c.info.id === chat.id)).toBe(false);
    expect(() => host.prompt(chat.id, 'x')).toThrow(expect.objectContaining({ code: 'no_such_chat' }) as unknown as Error);
  });
});
