import { describe, expect, it } from 'vitest';
import { Emitter, type ProcessServerMessage } from '@ptydeck/contract';
import type { PanelError } from '../connection/panel-client.js';
import { createProcessPanel } from './process-panel.js';

function harness(online = true) {
  const processes = new Emitter<ProcessServerMessage>();
  const errors = new Emitter<PanelError>();
  const forwarded = new Emitter<{ requestId: string; id: string; port: number; url: string }>();
  const sent: unknown[] = [];
  const notices: string[] = [];
  const opened: string[] = [];
  let seq = 0;
  const panel = createProcessPanel({
    client: {
      onProcesses: processes.on,
      onError: errors.on,
      queryProcesses: (id) => (online ? (sent.push({ query: id }), `q${++seq}`) : null),
      endProcesses: (id, pids, kind) => (online ? (sent.push({ end: id, pids, ...(kind === 'chat' ? { kind } : {}) }), `e${++seq}`) : null),
      forwardPort: (id, port) => (online ? (sent.push({ forward: id, port }), `f${++seq}`) : null),
      onPortForwarded: forwarded.on,
    },
    notice: (message) => notices.push(message),
    openLink: (uri) => opened.push(uri),
  });
  return { panel, processes, errors, forwarded, sent, notices, opened };
}

const sleeper = { pid: 42, command: 'sleep 999', startedAt: 1 };

describe('createProcessPanel', () => {
  it('asks for a session\'s processes when shown, fills them in from the answer, and hides them again', () => {
    const { panel, processes, sent } = harness();
    panel.toggle('s1');
    expect(sent).toEqual([{ query: 's1' }]);
    expect(panel.state.shown.s1).toEqual({ processes: null, known: true });
    // An answer to another request, or for another session, is not this one's.
    processes.fire({ type: 'processes.list', requestId: 'q9', id: 's1', processes: [] });
    expect(panel.state.shown.s1!.processes).toBeNull();
    processes.fire({ type: 'processes.list', requestId: 'q1', id: 's1', processes: [sleeper] });
    expect(panel.state.shown.s1!.processes).toEqual([sleeper]);
    panel.toggle('s1');
    expect(panel.state.shown.s1).toBeUndefined();
  });

  it('says when the system cannot list processes', () => {
    const { panel, processes } = harness();
    panel.toggle('s1');
    processes.fire({ type: 'processes.list', requestId: 'q1', id: 's1', processes: null });
    expect(panel.state.shown.s1).toEqual({ processes: null, known: false });
  });

  it('keeps leftovers as the core sends them, and marks pids ending until answered, naming what was not ended', () => {
    const { panel, processes, sent, notices } = harness();
    const leftover = { id: 's2', title: 'dev', source: 'user' as const, ownerName: null, known: false, processes: [sleeper], ports: [] };
    processes.fire({ type: 'processes.leftovers', sessions: [leftover] });
    expect(panel.state.leftovers).toEqual([leftover]);
    panel.end('s2', [42, 43]);
    expect(sent).toEqual([{ end: 's2', pids: [42, 43] }]);
    expect(panel.state.ending).toEqual([42, 43]);
    processes.fire({ type: 'processes.ended', requestId: 'e1', id: 's2', ended: [], notEnded: [{ pid: 42, command: 'sleep 999' }], refused: [43] });
    expect(panel.state.ending).toEqual([]);
    expect(notices).toEqual(["Not ended: sleep 999 (pid 42), pid 43 (no longer this session's)"]);
  });

  it("ends a dead host's chat's leftovers as a chat's", () => {
    const { panel, sent } = harness();
    panel.end('chat-1', [42], 'chat');
    expect(sent).toEqual([{ end: 'chat-1', pids: [42], kind: 'chat' }]);
  });

  it("shows every host's leftovers together, each host's message replacing only that host's", () => {
    const { panel, processes } = harness();
    const here = { id: 'l1', title: 'dev', source: 'user' as const, ownerName: null, known: false, processes: [sleeper], ports: [] };
    const there = { ...here, id: 'r1', host: 'box' };
    processes.fire({ type: 'processes.leftovers', sessions: [here] });
    processes.fire({ type: 'processes.leftovers', host: 'box', sessions: [there] });
    expect(panel.state.leftovers.map((session) => session.id)).toEqual(['l1', 'r1']);
    processes.fire({ type: 'processes.leftovers', sessions: [] });
    expect(panel.state.leftovers.map((session) => session.id)).toEqual(['r1']);
    processes.fire({ type: 'processes.leftovers', host: 'box', sessions: [] });
    expect(panel.state.leftovers).toEqual([]);
  });

  it('lets go of an end the core refused with an error', () => {
    const { panel, errors } = harness();
    panel.end('s3', [7]);
    errors.fire({ code: 'no_such_session', message: 'gone', requestId: 'e1' });
    expect(panel.state.ending).toEqual([]);
  });

  it('says so offline instead of asking', () => {
    const { panel, notices, sent } = harness(false);
    panel.toggle('s1');
    panel.end('s1', [1]);
    expect(sent).toEqual([]);
    expect(notices).toHaveLength(2);
  });

  it('opens a chip\'s loopback URL through the link opener, and nothing for a chip without one', () => {
    const { panel, opened } = harness();
    panel.openPort({ port: 8000, url: 'http://127.0.0.1:8000/', sockets: [] });
    panel.openPort({ port: 9000, url: null, sockets: [] });
    expect(opened).toEqual(['http://127.0.0.1:8000/']);
  });

  it("opens a remote session's port through the forward the core answers with, and says why when it could not", () => {
    const { panel, forwarded, errors, sent, opened, notices } = harness();
    panel.openRemotePort('r1', { port: 8000, url: 'http://127.0.0.1:8000/', sockets: [] });
    expect(sent).toEqual([{ forward: 'r1', port: 8000 }]);
    // Another panel's answer, or one nobody asked for, opens nothing.
    forwarded.fire({ requestId: 'f9', id: 'r1', port: 8000, url: 'http://127.0.0.1:5555/' });
    expect(opened).toEqual([]);
    forwarded.fire({ requestId: 'f1', id: 'r1', port: 8000, url: 'http://127.0.0.1:40123/' });
    expect(opened).toEqual(['http://127.0.0.1:40123/']);
    panel.openRemotePort('r1', { port: 8001, url: 'http://127.0.0.1:8001/', sockets: [] });
    errors.fire({ code: 'port_forward_failed', message: 'ssh exited', requestId: 'f2' });
    expect(notices).toEqual(['Could not open the port: ssh exited']);
  });
});
