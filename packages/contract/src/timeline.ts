// The command timeline (issue 36): one record per command a session's shell ran, as the core keeps it and the
// panel, the CLI and the agent tool show it.
import { z } from 'zod';
import { SessionId } from './session.js';

/** Longest command line a record keeps; the shell cuts longer ones and the record ends with "…". */
export const MAX_COMMAND_CHARS = 2000;
/** Longest session title a closed session's records keep. */
export const MAX_CLOSED_TITLE_CHARS = 200;

/**
 * Who typed the command line: the agent that owns the session (through its
 * tool calls), the developer (the panel, `ptydeck attach`), both (`mixed`),
 * or nobody ptydeck saw (`unknown`: a line the shell read before anyone
 * typed, such as a startup file's).
 */
export const CommandActor = z.object({
  kind: z.enum(['agent', 'developer', 'mixed', 'unknown']),
  /** The agent's name (the MCP client's, or the chat's agent), when an agent typed. */
  name: z.string().max(200).nullable(),
});
export type CommandActor = z.infer<typeof CommandActor>;

/** `lost`: the host that followed it stopped while it ran; how it ended is not known. */
export const CommandStatus = z.enum(['running', 'done', 'lost']);
export type CommandStatus = z.infer<typeof CommandStatus>;

export const CommandRecord = z.object({
  /** `<session>:<n>`, n counting the session's commands from 1. */
  id: z.string().max(200),
  session: SessionId,
  /** The line as the shell's history has it; null when the shell left it out of its history (HISTCONTROL). */
  command: z.string().max(MAX_COMMAND_CHARS + 1).nullable(),
  /** The shell's working directory when the command started; null when it did not say. */
  cwd: z.string().max(4096).nullable(),
  actor: CommandActor,
  status: CommandStatus,
  /** Epoch milliseconds. */
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  /** The signal that ended it, from an exit status above 128 (130: SIGINT). */
  signal: z.string().max(32).nullable(),
  /** Its output in the session's log: absolute cursors, end null while it runs. */
  output: z.object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative().nullable() }),
  /** The remote host the session is on, as this machine's panel shows it; absent for this machine's. */
  host: z.string().max(64).optional(),
  /**
   * The session was closed: the record stays (what ran, and how it ended, outlives the shell, as an audit
   * should), its output went with the session. Its title then, and when (epoch ms).
   */
  closed: z
    .object({
      title: z.string().max(MAX_CLOSED_TITLE_CHARS),
      at: z.number(),
      /**
       * The record is one an earlier host left on disk (the store's closed records, or a restored session's):
       * anything running as the developer could have written it, so it is not proof of what ran.
       */
      restored: z.literal(true).optional(),
    })
    .optional(),
});
export type CommandRecord = z.infer<typeof CommandRecord>;

/**
 * One host's commands, sent when a panel connects (and when a remote's link
 * comes back): this machine's (no `host`), or a remote's, which replace only
 * that remote's.
 */
export const TimelineSnapshotMessage = z.object({ type: z.literal('timeline.snapshot'), commands: z.array(CommandRecord), host: z.string().max(64).optional() });
/** A command started or ended: the record as it is now (the panel replaces its copy by id). */
export const TimelineCommandMessage = z.object({ type: z.literal('timeline.command'), command: CommandRecord });

/** Duration in milliseconds, or null while it runs. */
export function commandDuration(record: Pick<CommandRecord, 'startedAt' | 'endedAt'>): number | null {
  return record.endedAt === null ? null : Math.max(0, record.endedAt - record.startedAt);
}

/** Whether the command failed: a non-zero exit, a signal, or lost with its host. */
export function commandFailed(record: Pick<CommandRecord, 'status' | 'exitCode' | 'signal'>): boolean {
  return record.status === 'lost' || (record.exitCode !== null && record.exitCode !== 0) || record.signal !== null;
}

export const RecordingFormat = z.enum(['asciicast-v3', 'asciicast-v2', 'text']);
export type RecordingFormat = z.infer<typeof RecordingFormat>;

/** Asks for a session's recording; answered by `timeline.exported` (or an error with the requestId). */
export const TimelineExportMessage = z.object({ type: z.literal('timeline.export'), requestId: z.string().max(64), id: SessionId, format: RecordingFormat });
/** The recording, whole: asciicast's JSON lines, or plain text. */
export const TimelineExportedMessage = z.object({ type: z.literal('timeline.exported'), requestId: z.string().max(64), id: SessionId, format: RecordingFormat, data: z.string() });

export const TimelineClientMessage = z.discriminatedUnion('type', [TimelineExportMessage]);
export type TimelineClientMessage = z.infer<typeof TimelineClientMessage>;

export const TimelineServerMessage = z.discriminatedUnion('type', [TimelineSnapshotMessage, TimelineCommandMessage, TimelineExportedMessage]);
export type TimelineServerMessage = z.infer<typeof TimelineServerMessage>;
