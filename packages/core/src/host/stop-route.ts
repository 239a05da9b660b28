// The host's /stop route, guarded like a panel link: no process inside a session and no web page may stop the
// host.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionInfo } from '@ptydeck/contract';
import type { ServerRoute } from '../server/http-server.js';
import { STOP_PATH } from '../common/stop-protocol.js';
import { counted } from '../common/counted.js';
import type { AgentSessionSummary, StopAnswer } from '../common/stop-answer.js';

/** Why /stop ends the host: `ptydeck stop`, or a newer client retiring an older host that runs nothing. */
export type HostStopKind = 'stop' | 'retire';

export interface StopRouteDeps {
  /** The host's sessions now. */
  sessions(): readonly SessionInfo[];
  /** Chats running now. */
  chatCount(): number;
  /**
   * Tells the agents' `ptydeck mcp` bridges that the host is being stopped, so they start no new one;
   * answers how many agents were connected.
   */
  announceStop(): number;
  /**
   * Called once the answer is on its way: ends the host. 'stop' for `ptydeck stop`, the developer's
   * decision to end every session; 'retire' for an idle older host stopped for a newer one (ifIdle).
   */
  onStop(how: HostStopKind): void;
}

/**
 * The host's /stop. Stopping ends every session, the developer's included, so
 * it is guarded like a panel link: only a process outside every ptydeck session
 * may ask, and a web page never. Agents' running sessions are listed rather than
 * ended unless the asker insists.
 */
export function stopRoute(deps: StopRouteDeps): ServerRoute {
  let stopping = false;
  let agents = 0;
  return (req, res, asker) => {
    if (asker.pathname !== STOP_PATH) return false;
    if (req.method !== 'POST') return answer(res, 405, { error: 'use POST' });
    if (req.headers.origin !== undefined) return answer(res, 403, { error: 'web pages cannot stop ptydeck' });
    const verdict = asker.judge();
    if (verdict.kind !== 'outside') {
      const why = verdict.kind === 'refused' ? verdict.reason : `this system cannot tell who is asking (${verdict.reason})`;
      return answer(res, 403, { error: `refused: ${why}. Only a process outside every ptydeck session may stop ptydeck; run \`ptydeck stop\` in a terminal of your own, or end pid ${process.pid}.` });
    }
    const running = deps.sessions().filter((session) => session.status === 'running');
    if (flag(req, 'ifIdle') && (running.length > 0 || deps.chatCount() > 0)) {
      return answer(res, 409, { error: `not idle: ${counted(running.length, 'running session')}, ${counted(deps.chatCount(), 'chat')}` });
    }
    const agentSessions: AgentSessionSummary[] = running
      .filter((session) => session.source === 'agent')
      .map((session) => ({ id: session.id, ownerName: session.ownerName, command: session.command, title: session.title }));
    if (agentSessions.length > 0 && !flag(req, 'force')) {
      return answer(res, 409, { error: `${counted(agentSessions.length, 'agent session')} running; stop with --force to end them too`, agentSessions });
    }
    if (!stopping) {
      stopping = true;
      const how: HostStopKind = flag(req, 'ifIdle') ? 'retire' : 'stop';
      // Not when an older host is retired for a newer one (ifIdle): its bridges are to join the newer host.
      agents = how === 'retire' ? 0 : deps.announceStop();
      // After the answer is written: closing the server would cut this very connection.
      res.once('finish', () => deps.onStop(how));
    }
    return answer(res, 200, { stopping: true, pid: process.pid, sessions: running.length, chats: deps.chatCount(), agents });
  };
}

function flag(req: IncomingMessage, name: 'force' | 'ifIdle'): boolean {
  return new URL(req.url ?? '/', 'http://placeholder').searchParams.get(name) === '1';
}

/** Writes the answer; true, because the route handled the request. */
function answer(res: ServerResponse, status: number, body: StopAnswer): true {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
  return true;
}
