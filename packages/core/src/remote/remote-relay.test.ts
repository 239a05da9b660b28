// The relay as a remote's messages reach it: what a remote says is untrusted, so its timeline records are taken only for its own sessions.
import { describe, expect, it } from 'vitest';
import { Emitter, type CommandRecord, type PanelClientMessage, type PanelServerMessage } from '@ptydeck/contract';
import type { RemotePanelLink } from './remote-panel-link.js';
import { RemoteRelay, type RelaySink } from './remote-relay.js';

const LOCAL = '11111111-1111-4111-8111-111111111111';
const THEIRS = '22222222-2222-4222-8222-222222222222';

function record(session: string, id = `${session}:1`): CommandRecord {
  return {
    id,
    session,
    command: 'make',
    cwd: '/w',
    actor: { kind: 'developer', name: null },
    status: 'done',
    startedAt: 1,
    endedAt: 2,
    exitCode: 0,
    signal: null,
    output: { start: 0, end: 10 },
  };
}

/** A link whose remote says what the test makes it say. */
function fakeLink() {
  const messages = new Emitter<PanelServerMessage>({ name: 'test remote message' });
  const sent: PanelClientMessage[] = [];
  const link = {
    remote: { name: 'box', destination: 'box' },
    state: { state: 'connected', detail: null },
    onSnapshot: new Emitter({ name: 'test snapshot' }).on,
    onMessage: messages.on,
    onFrame: new Emitter({ name: 'test frame' }).on,
    onState: new Emitter({ name: 'test state' }).on,
    send: (message: PanelClientMessage) => (sent.push(message), true),
    close: () => {},
  } as unknown as RemotePanelLink;
  return { link, say: (message: PanelServerMessage) => messages.fire(message), sent };
}

describe("a remote's timeline through its relay", () => {
  it("tags the remote's records with its name, and drops those naming this machine's sessions or another session's id", () => {
    const heard: PanelServerMessage[] = [];
    const sink: RelaySink = { send: (m) => heard.push(m), sendBinary: () => {}, taken: (id) => id === LOCAL, changed: () => {}, claim: () => undefined, answered: () => {} };
    const { link, say } = fakeLink();
    new RemoteRelay(link, sink);
    say({ type: 'timeline.snapshot', commands: [record(THEIRS), record(LOCAL), record(THEIRS, `${LOCAL}:1`)] });
    say({ type: 'timeline.command', command: { ...record(LOCAL), host: undefined } });
    say({ type: 'timeline.command', command: record(THEIRS, `${THEIRS}:2`) });
    expect(heard).toEqual([
      { type: 'timeline.snapshot', host: 'box', commands: [{ ...record(THEIRS), host: 'box' }] },
      { type: 'timeline.command', command: { ...record(THEIRS, `${THEIRS}:2`), host: 'box' } },
    ]);
  });

  it('passes an export on only for a request it sent', () => {
    const heard: PanelServerMessage[] = [];
    const sink: RelaySink = { send: (m) => heard.push(m), sendBinary: () => {}, taken: () => false, changed: () => {}, claim: () => undefined, answered: () => {} };
    const { link, say, sent } = fakeLink();
    const relay = new RemoteRelay(link, sink);
    const exported = (requestId: string) => ({ type: 'timeline.exported', requestId, id: THEIRS, format: 'text', data: 'x' }) as const;
    say(exported('never-asked'));
    relay.route({ type: 'timeline.export', requestId: 'x1', id: THEIRS, format: 'text' });
    expect(sent).toEqual([{ type: 'timeline.export', requestId: 'x1', id: THEIRS, format: 'text' }]);
    say(exported('x1'));
    say(exported('x1'));
    expect(heard).toEqual([exported('x1')]);
  });
});
