// Checks that a connection presenting a chat binding comes from that chat's agent, not a process that read the
// secret.
import type { Socket } from 'node:net';
import { peerDescendsFromProc, type LineageJudge } from '../common/peer-process.js';

/**
 * Whether a connection presenting a chat binding comes from that chat's agent.
 * The binding travels in the environment of the MCP server the agent starts,
 * which every process of the developer's can read in /proc/<pid>/environ, so
 * the secret alone would let a shell of another session act as the chat. The
 * kernel says who holds the connection; only the agent's descendants pass.
 * Where it cannot say (no /proc: macOS), the secret alone decides, as the
 * docs/security.md says.
 *
 * Naming the holder scans every process's descriptors (milliseconds), so the
 * verdict is kept per socket: its holder does not change while it is open
 * (`ptydeck mcp` keeps its connection alive across requests).
 */
export class ChatPeerCheck {
  private readonly verdicts = new WeakMap<Socket, Map<number, boolean>>();

  constructor(private readonly judge: LineageJudge = peerDescendsFromProc) {}

  fromAgent(socket: Socket, agentPid: number | undefined): boolean {
    // The agent has not started yet, so nothing can be its.
    if (agentPid === undefined) return false;
    let known = this.verdicts.get(socket);
    const cached = known?.get(agentPid);
    if (cached !== undefined) return cached;
    const verdict = this.judge(socket, agentPid);
    const allowed = verdict.kind !== 'refused';
    if (!known) this.verdicts.set(socket, (known = new Map()));
    known.set(agentPid, allowed);
    return allowed;
  }
}
