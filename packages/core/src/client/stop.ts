// `ptydeck stop`: asks the host to end itself and its sessions, and waits until its process is gone.
import { readDiscovery, resolveStateDir } from '../common/discovery.js';
import { waitForExit } from '../common/process-identity.js';
import { assertTrustedHost } from './ensure-host.js';
import { STOP_PATH } from '../common/stop-protocol.js';
import { StopAnswer, type AgentSessionSummary } from '../common/stop-answer.js';
import type { CliIo } from './cli-io.js';
import { printable } from '../common/printable.js';
import { requestJson } from './host-request.js';
import { EXIT_FAILURE, EXIT_OK } from '../common/exit-codes.js';
import { counted } from '../common/counted.js';

/** The host's own bound on ending its sessions (8 s) plus a margin. */
const EXIT_WAIT_MS = 12_000;

/**
 * `ptydeck stop`: asks the host to end itself and every session in it, then
 * waits for its process to be gone. It presents no secret: the host decides by
 * which process asks, as for `ptydeck url`.
 */
export async function runStop(command: { force: boolean }, io: CliIo, stateDir: string = resolveStateDir()): Promise<number> {
  const found = readDiscovery(stateDir);
  if (found.status !== 'live') {
    io.stderr.write(`ptydeck: no ptydeck host is running for ${stateDir}\n`);
    return EXIT_FAILURE;
  }
  const { url, pid } = found.record;
  // What a server that is not the host would answer is its own invention.
  assertTrustedHost(found.record, stateDir);
  const target = new URL(STOP_PATH, url);
  if (command.force) target.searchParams.set('force', '1');
  const response = await requestJson(target, { method: 'POST', timeoutMs: 5000 }).catch((error: Error) => {
    throw new Error(`the ptydeck host at ${url} is not answering (${error.message}); end it with \`kill ${pid}\``);
  });
  const parsed = StopAnswer.safeParse(response.body);
  if (!parsed.success) throw new Error(`the ptydeck host at ${url} answered ${response.status} without saying why`);
  const answer = parsed.data;
  if ('agentSessions' in answer) {
    const list = agentSessionLines(answer.agentSessions);
    io.stderr.write(`ptydeck: not stopping: agents' sessions are running:\n${list}\nStop anyway (ending them) with \`ptydeck stop --force\`.\n`);
    return EXIT_FAILURE;
  }
  if ('error' in answer) throw new Error(answer.error);
  const gone = await waitForExit(answer.pid, EXIT_WAIT_MS);
  io.stdout.write(`${stoppedLine(answer)}\n`);
  if (!gone) io.stderr.write(`ptydeck: the host (pid ${answer.pid}) is still shutting down\n`);
  return EXIT_OK;
}

/** What a stop ended, in words: "1 running session", "3 running sessions and 2 chats"; then the agents' line. */
export function stoppedLine(answer: { pid: number; sessions: number; chats: number; agents?: number | undefined }): string {
  const chats = answer.chats > 0 ? ` and ${counted(answer.chats, 'chat')}` : '';
  return `Stopped the ptydeck host (pid ${answer.pid}); ended ${counted(answer.sessions, 'running session')}${chats}.${agentsLine(answer.agents)}`;
}

/** How many agents were connected, and that their `ptydeck mcp` wait for the developer (a host that predates the count says nothing). */
function agentsLine(agents: number | undefined): string {
  if (agents === undefined) return '';
  if (agents === 0) return ' No agent was connected.';
  if (agents === 1) return ' 1 agent was connected; its `ptydeck mcp` starts no new host, and joins the one you start with `ptydeck`.';
  return ` ${agents} agents were connected; their \`ptydeck mcp\` start no new host, and join the one you start with \`ptydeck\`.`;
}

/**
 * The agents' sessions that keep the host from stopping, one a line: id,
 * agent, and title as the panel and `ptydeck ls` name them (a shell's command
 * is /bin/bash, whichever shell it is); the command where an older host sent
 * no title. Agents name both, so both are made printable.
 */
export function agentSessionLines(sessions: readonly AgentSessionSummary[]): string {
  return sessions.map((s) => `  ${s.id}  ${printable(s.ownerName ?? 'agent')}  ${printable(s.title ?? s.command)}`).join('\n');
}
