/**
 * The panel WebSocket protocol (core ⇄ app).
 *
 * Control messages are JSON text frames, one schema each. Session output is
 * carried in binary frames (see output-frame.ts) so bytes reach xterm.js
 * untouched: a chunk may end inside a UTF-8 sequence and xterm.js joins it.
 */
import { z } from 'zod';
import { AgentInfo, Cols, Rows, SessionId, SessionInfo } from './session.js';
import { PtyEvent } from './events.js';
import { ChatClientMessage, ChatServerMessage } from './chat-protocol.js';
import { ProcessClientMessage, ProcessServerMessage } from './process-protocol.js';
import { TimelineClientMessage, TimelineServerMessage } from './timeline.js';
import { RemoteClientMessage, RemoteServerMessage } from './remote-protocol.js';
import { MAX_PANEL_INPUT_CHARS, SESSION_ID_MAX, SESSION_ID_MIN } from './session-limits.js';

// ---- app → core ----

/** Start streaming a session's output. Without a cursor the core restores the screen first. */
export const AttachMessage = z.object({
  type: z.literal('attach'),
  id: SessionId,
  /** Absolute byte cursor to resume from (the `next` of the last frame applied), or null. */
  cursor: z.number().int().min(0).nullable(),
});
export const DetachMessage = z.object({ type: z.literal('detach'), id: SessionId });
export const InputMessage = z.object({
  type: z.literal('input'),
  id: SessionId,
  data: z.string().max(MAX_PANEL_INPUT_CHARS),
});
export const ResizeMessage = z.object({ type: z.literal('resize'), id: SessionId, cols: Cols, rows: Rows });
/** A user terminal. Command and arguments are never taken from the renderer: it is always the user's shell. */
export const CreateMessage = z.object({
  type: z.literal('create'),
  requestId: z.string().max(64),
  cols: Cols.optional(),
  rows: Rows.optional(),
  /** A remote's name (remote-protocol.ts) to open the tab there; absent for this machine. */
  host: z.string().max(64).optional(),
});
/**
 * Flow control: the viewer's terminal has parsed a session's output up to
 * `cursor` (absolute, one past the last byte parsed). The core keeps only a
 * window of unacknowledged output in flight per viewer, so a terminal slower
 * than a flood never has megabytes queued in sockets and write queues; it
 * skips ahead with a `resync` instead. Send acks in batches, not per frame.
 */
export const AckMessage = z.object({ type: z.literal('ack'), id: SessionId, cursor: z.number().int().min(0) });
/**
 * An ack AckMessage would accept, read from parsed JSON by hand; undefined for
 * anything else, which the schema then checks as before. Acks are most of what
 * a panel sends while output streams (several a MB), and zod's check of the
 * union was most of their cost on the host's main thread during a flood
 * (bench/README.md, "Figure 2's main thread per MB").
 */
export function ackOf(json: unknown): { id: string; cursor: number } | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { type, id, cursor } = json as Record<string, unknown>;
  if (type !== 'ack' || typeof id !== 'string' || id.length < SESSION_ID_MIN || id.length > SESSION_ID_MAX) return undefined;
  if (typeof cursor !== 'number' || !Number.isSafeInteger(cursor) || cursor < 0) return undefined;
  return { id, cursor };
}
/** Close a tab: ends the session's process group; user sessions are also removed. */
export const CloseMessage = z.object({ type: z.literal('close'), id: SessionId });

export const PanelClientMessage = z.discriminatedUnion('type', [
  AttachMessage,
  DetachMessage,
  InputMessage,
  ResizeMessage,
  CreateMessage,
  CloseMessage,
  AckMessage,
  ...ChatClientMessage.options,
  ...ProcessClientMessage.options,
  ...TimelineClientMessage.options,
  ...RemoteClientMessage.options,
]);
export type PanelClientMessage = z.infer<typeof PanelClientMessage>;

// ---- core → app ----

/** How an agent on this machine launches ptydeck's stdio MCP server (`ptydeck mcp`). */
export const McpLaunch = z.object({ command: z.string(), args: z.array(z.string()) });
export type McpLaunch = z.infer<typeof McpLaunch>;

/** The host itself, as `ptydeck status` shows it: what a person needs to find, judge or end it. */
export const HostFacts = z.object({
  pid: z.number().int(),
  /** The ptydeck package version the host runs. */
  version: z.string(),
  /** Its HOST_PROTOCOL_VERSION. */
  protocol: z.number().int(),
  /** Epoch milliseconds when its process started. */
  startedAt: z.number(),
  stateDir: z.string(),
});
export type HostFacts = z.infer<typeof HostFacts>;

export const SnapshotMessage = z.object({
  type: z.literal('snapshot'),
  sessions: z.array(SessionInfo),
  agents: z.array(AgentInfo),
  /** Server instance id: changes when ptydeck restarts, so a client knows its cursors are void. */
  instance: z.string(),
  /** Filled in by the server so the overview's set-up snippets name this install's real path. */
  mcpLaunch: McpLaunch.optional(),
  /** The host's own facts, for `ptydeck status`; absent from a host that predates them. */
  host: HostFacts.optional(),
});
export const EventMessage = z.object({ type: z.literal('event'), event: PtyEvent });
/**
 * An agent connected. The snapshot carries the whole list once; after it, a
 * panel hears of each change alone, so n agents coming and going cost O(n)
 * bytes, not a list of up to n per change (O(n²)).
 */
export const AgentAddedMessage = z.object({ type: z.literal('agent.added'), agent: AgentInfo });
/** The agent's connection ended; its sessions stay, owned by an agent no longer connected. */
export const AgentRemovedMessage = z.object({ type: z.literal('agent.removed'), id: z.string() });
/**
 * Most marks a resync carries: two per command (its output's start and end),
 * for a restored buffer of at most 10 000 rows (the panel's scrollback).
 */
export const MAX_SCREEN_MARKS = 20_000;
/**
 * A byte cursor of the session's log and where the screen stood after
 * parsing the bytes before it: `y` counts the serialized screen's rows from
 * its first (0: the oldest line of scrollback it holds), `x` the column.
 */
export const ScreenMark = z.object({ cursor: z.number().int().min(0), y: z.number().int().min(0), x: z.number().int().min(0) });
export type ScreenMark = z.infer<typeof ScreenMark>;
/**
 * The viewer must reset its terminal and write `screen` (a serialized screen with
 * scrollback): it attached without a cursor, or fell behind the retained log
 * or too far behind the log's head (its acks trail the newest output).
 * Output frames continue from `cursor`. `skipped` counts bytes the viewer never saw.
 * The screen reflects the log up to `cursor`, except after a flood that outran the
 * making of it: the viewer then continues near the log's head, and the screen lacks
 * what the flood wrote meanwhile (counted in `skipped`) until that output repaints it.
 */
export const ResyncMessage = z.object({
  type: z.literal('resync'),
  id: SessionId,
  cursor: z.number().int().min(0),
  skipped: z.number().int().min(0),
  screen: z.string(),
  /**
   * Where commands' outputs start and end in `screen` (a command record's
   * `output.start` or `output.end`), for those still in it: the gutter marks
   * of commands the viewer never parsed. Absent or empty when none is there,
   * or when the screen is a full-screen program's.
   */
  marks: z.array(ScreenMark).max(MAX_SCREEN_MARKS).optional(),
});
export const CreatedMessage = z.object({ type: z.literal('created'), requestId: z.string(), info: SessionInfo });
export const ErrorMessage = z.object({
  type: z.literal('error'),
  message: z.string(),
  /** Machine-readable code, e.g. 'invalid_message', 'no_such_session', 'session_limit'. */
  code: z.string(),
  requestId: z.string().optional(),
});

export const PanelServerMessage = z.discriminatedUnion('type', [
  SnapshotMessage,
  EventMessage,
  AgentAddedMessage,
  AgentRemovedMessage,
  ResyncMessage,
  CreatedMessage,
  ErrorMessage,
  ...ChatServerMessage.options,
  ...ProcessServerMessage.options,
  ...TimelineServerMessage.options,
  ...RemoteServerMessage.options,
]);
export type PanelServerMessage = z.infer<typeof PanelServerMessage>;

/**
 * Output the core sends a viewer beyond what it acknowledged as parsed (see
 * AckMessage). The browser drains its socket as fast as frames arrive whatever
 * its terminal's pace, so the socket's backlog never shows a slow terminal:
 * this window is what bounds the output queued ahead of a keystroke's echo (a
 * prompt after Ctrl-C waits behind at most this much). 128 KiB keeps that
 * wait near a 64 KiB window's for a terminal that parses slowly (a browser on
 * a loaded machine; the bench README has the measurements), while a fast
 * reader on loopback still streams at tens of MB/s.
 *
 * It is the floor and the starting size of each viewer's window: the core
 * widens the window for a viewer whose acks show it parses fast (up to what it
 * parses in a target delay of tens of milliseconds, see the core's
 * ViewerWindow) and narrows it back at once when its acks lag, so the bound
 * above is on the wait, and a terminal as slow as that Chromium keeps this.
 */
export const ACK_WINDOW = 128 * 1024;

/**
 * How much output a panel acknowledges at a time (the app's terminals, and
 * the bench's client, which stands in for them): an eighth of the window, so
 * the window refills while the terminal still parses the rest. At least this
 * much, and at most one ack a task: output parsed in one task is acknowledged
 * once, after it (the app's WriteFlow).
 */
export const ACK_BATCH_BYTES = ACK_WINDOW / 8;
