// The panel messages about sessions' processes: asking for them, what ended sessions left running, ending them.
import { z } from 'zod';
import { ListeningPort, SessionId, SessionProcess, SessionSource } from './session.js';

/**
 * What sessions run, for the panel (core ⇄ app, over the panel WebSocket):
 * a session's processes on request, the processes sessions left running after
 * they ended, and ending those. Ports ride on SessionInfo (`ports`).
 */

/** Most pids one `processes.end` names. */
export const MAX_END_PIDS = 256;

/**
 * Whose processes a leftover lists: a session's (absent means this), or a
 * chat's whose host died without closing it (its agent and what it started,
 * which the next host could not end); `id` is then the chat's id.
 */
export const LeftoverKind = z.enum(['session', 'chat']);
export type LeftoverKind = z.infer<typeof LeftoverKind>;

// ---- app → core ----

/** Asks for a session's processes now; answered by `processes.list`. */
export const ProcessesQueryMessage = z.object({ type: z.literal('processes.query'), requestId: z.string().max(64), id: SessionId });
/**
 * Ends these processes of the session (SIGTERM, SIGKILL after a grace
 * period). The core checks each pid against the session's processes at the
 * time of the request and refuses any other: a pid from the page is a
 * request, never a licence. Answered by `processes.ended`.
 */
export const ProcessesEndMessage = z.object({
  type: z.literal('processes.end'),
  requestId: z.string().max(64),
  id: SessionId,
  pids: z.array(z.number().int().positive()).min(1).max(MAX_END_PIDS),
  /** A chat's leftovers (`id` a chat's): checked against what the dead host's chat left now. */
  kind: LeftoverKind.optional(),
});

export const ProcessClientMessage = z.discriminatedUnion('type', [ProcessesQueryMessage, ProcessesEndMessage]);
export type ProcessClientMessage = z.infer<typeof ProcessClientMessage>;

// ---- core → app ----

/** A session's processes; null where the system cannot say (no /proc). */
export const ProcessesListMessage = z.object({
  type: z.literal('processes.list'),
  requestId: z.string(),
  id: SessionId,
  processes: z.array(SessionProcess).nullable(),
});

export const NamedProcess = z.object({ pid: z.number().int(), command: z.string() });
export const ProcessesEndedMessage = z.object({
  type: z.literal('processes.ended'),
  requestId: z.string(),
  id: SessionId,
  ended: z.array(NamedProcess),
  /** Still running after SIGKILL (stuck in the kernel, or not ours to signal): named, not hidden. */
  notEnded: z.array(NamedProcess),
  /** Pids the session does not own (any more): left alone. */
  refused: z.array(z.number().int()),
});

/** A session that has ended (or was closed and removed) with processes still running, as the overview lists it. */
export const LeftoverSession = z.object({
  id: SessionId,
  kind: LeftoverKind.optional(),
  title: z.string(),
  source: SessionSource,
  ownerName: z.string().nullable(),
  /** False once the session was removed (its tab closed): only these processes remain of it. */
  known: z.boolean(),
  processes: z.array(SessionProcess),
  ports: z.array(ListeningPort),
  /** The remote host the session was on; absent for this machine's. */
  host: z.string().optional(),
});
export type LeftoverSession = z.infer<typeof LeftoverSession>;

/**
 * One host's leftovers, all of them, sent on connect and whenever they
 * change: this machine's (no `host`), or a remote's, which replace only
 * that remote's.
 */
export const ProcessesLeftoverMessage = z.object({ type: z.literal('processes.leftovers'), sessions: z.array(LeftoverSession), host: z.string().optional() });

export const ProcessServerMessage = z.discriminatedUnion('type', [ProcessesListMessage, ProcessesEndedMessage, ProcessesLeftoverMessage]);
export type ProcessServerMessage = z.infer<typeof ProcessServerMessage>;
