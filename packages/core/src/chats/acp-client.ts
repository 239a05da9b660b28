// ptydeck's side of ACP for one agent connection: file reads and writes, terminals and permission questions.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { RequestPermissionOutcome, RequestPermissionRequest, SessionNotification } from '@agentclientprotocol/sdk';
import { Emitter, reportError, type ErrorReporter, type OnEvent } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { AcpTerminals, type AcpTerminalsOptions } from './acp-terminals.js';
import { isWithin, resolveWriteTarget, writeResolved } from './write-target.js';
import { readUntrustedFile, UntrustedFileError } from '../common/untrusted-read.js';

/** The developer's answer to "may the agent write this file?". */
export type WriteDecision = 'allow_once' | 'allow_for_session' | 'reject';

/** A write the agent asks for. */
export interface WriteRequest {
  sessionId: string;
  /** The path as the agent named it (absolute). */
  path: string;
  /** Where it would land: `path` with `..` and symbolic links resolved. This is what is written. */
  target: string;
  content: string;
}

/** Where the client asks the developer; the UI implements these. */
export interface AcpClientCallbacks {
  /**
   * Shows the agent's permission request and resolves with the optionId the
   * developer chose, or null when they dismissed it. `signal` aborts when the
   * request is answered without them (cancel(), the agent withdrew it), so the
   * prompt can close.
   */
  requestPermission(request: RequestPermissionRequest, signal: AbortSignal): Promise<string | null>;
  /** Asks before the agent writes a file. `signal` aborts as above. */
  approveWrite(write: WriteRequest, signal: AbortSignal): Promise<WriteDecision>;
  /** Told after a write reached the disk (at `target`, resolved), so the developer hears of every change made. */
  wrote?(target: string, sessionId: string): void;
}

export interface AcpClientOptions {
  /** The agent's name from agents.json, on its terminals' badges. */
  agentName?: string;
  terminals?: Omit<AcpTerminalsOptions, 'ownerName' | 'cwdOf'>;
  /**
   * Where failures the agent cannot be told about go: a callback that threw,
   * an answer naming an option the agent never offered, a listener that threw.
   * Default: the contract's reportError (stderr).
   */
  onError?: ErrorReporter;
}

/** fs/read_text_file reads the whole file before slicing lines, so it refuses files past this size. */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

/** A question to the developer not yet answered. */
interface PendingDecision {
  sessionId: string;
  /** Answers it as cancelled (idempotent). */
  cancel(): void;
}

/**
 * ptydeck's side of one ACP connection: the client methods an agent calls
 * (file reads and writes, permission requests, terminals) and the
 * session/update notifications it sends. Build the SDK app with `app`; the
 * transport and the agent process are agent-process.ts's concern.
 */
export class AcpClient {
  readonly terminals: AcpTerminals;
  readonly app: acp.ClientApp;
  private readonly sessionUpdates: Emitter<SessionNotification>;
  /** Every session/update the agent sends, in order. */
  readonly onSessionUpdate: OnEvent<SessionNotification>;
  private readonly report: ErrorReporter;
  /** Working directory per ACP session, the default for its terminals. */
  private readonly sessionCwds = new Map<string, string>();
  /**
   * Sessions whose writes the developer allowed for the rest of the session,
   * each with the real path of its directory: the allowance covers writes that
   * land inside it, not a path reached through `..` or a link pointing out.
   */
  private readonly writesAllowed = new Map<string, string>();
  private readonly pending = new Set<PendingDecision>();

  constructor(
    service: PtyService,
    private readonly callbacks: AcpClientCallbacks,
    options: AcpClientOptions = {},
  ) {
    this.report = options.onError ?? reportError;
    this.sessionUpdates = new Emitter({ name: 'session/update', onListenerError: this.report });
    this.onSessionUpdate = this.sessionUpdates.on;
    this.terminals = new AcpTerminals(service, {
      ...options.terminals,
      ownerName: options.agentName,
      cwdOf: (sessionId) => this.sessionCwds.get(sessionId),
    });
    const { client } = acp.methods;
    // Every request names a session this client opened: limits are per session, so one the agent made up would escape them.
    this.app = acp
      .client({ name: 'ptydeck' })
      .onNotification(client.session.update, ({ params }) => this.sessionUpdates.fire(params))
      .onRequest(client.session.requestPermission, async ({ params, signal }) => {
        this.requireSession(params.sessionId);
        return { outcome: await this.askPermission(params, signal) };
      })
      .onRequest(client.fs.readTextFile, async ({ params }) => {
        this.requireSession(params.sessionId);
        return { content: await readText(params.path, params.line, params.limit) };
      })
      .onRequest(client.fs.writeTextFile, async ({ params, signal }) => {
        this.requireSession(params.sessionId);
        requireAbsolute(params.path);
        const write = { sessionId: params.sessionId, path: params.path, target: await targetOf(params.path), content: params.content };
        await this.approveWrite(write, signal);
        // A link swapped in while the developer looked would send the approved content elsewhere.
        const now = await targetOf(params.path);
        if (now !== write.target) {
          throw new acp.RequestError(-32603, `Write refused: '${params.path}' now leads to '${now}', not to '${write.target}' as the developer was shown.`, { path: params.path });
        }
        await writeText(write.target, params.content);
        this.callbacks.wrote?.(write.target, params.sessionId);
        return {};
      })
      .onRequest(client.terminal.create, ({ params }) => {
        this.requireSession(params.sessionId);
        return this.terminals.create(params);
      })
      .onRequest(client.terminal.output, ({ params }) => {
        this.requireSession(params.sessionId);
        return this.terminals.output(params);
      })
      .onRequest(client.terminal.waitForExit, ({ params, signal }) => {
        this.requireSession(params.sessionId);
        return this.terminals.waitForExit(params, signal);
      })
      .onRequest(client.terminal.kill, async ({ params }) => {
        this.requireSession(params.sessionId);
        await this.terminals.kill(params);
        return {};
      })
      .onRequest(client.terminal.release, async ({ params }) => {
        this.requireSession(params.sessionId);
        await this.terminals.release(params);
        return {};
      });
  }

  /** Records a session opened with the agent: its requests are served, its terminals start in `cwd`. */
  addSession(sessionId: string, cwd: string): void {
    this.sessionCwds.set(sessionId, cwd);
  }

  /**
   * Answers every pending permission request (and write approval) of
   * `sessionId`, or of every session, as cancelled: what ACP asks of a client
   * that cancels a prompt turn.
   */
  cancel(sessionId?: string): void {
    for (const decision of [...this.pending]) {
      if (sessionId === undefined || decision.sessionId === sessionId) decision.cancel();
    }
  }

  /** Cancels what is pending and releases every terminal. */
  async dispose(): Promise<void> {
    this.cancel();
    try {
      await this.terminals.releaseAll();
    } finally {
      this.terminals.dispose();
      this.sessionUpdates.clear();
    }
  }

  private requireSession(sessionId: string): void {
    if (!this.sessionCwds.has(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
  }

  /** session/request_permission: the developer's choice, or cancelled if they never make it. */
  private askPermission(request: RequestPermissionRequest, requestSignal: AbortSignal): Promise<RequestPermissionOutcome> {
    return this.decide(request.sessionId, requestSignal, { outcome: 'cancelled' }, async (signal) => {
      const optionId = await this.callbacks.requestPermission(request, signal);
      if (optionId === null) return { outcome: 'cancelled' };
      if (!request.options.some((option) => option.optionId === optionId)) {
        this.report(new Error(`'${optionId}' is not one of the options the agent offered`), 'an ACP permission answer was invalid');
        return { outcome: 'cancelled' };
      }
      return { outcome: 'selected', optionId };
    });
  }

  /** Resolves once the developer allowed the write; throws a JSON-RPC error otherwise. */
  private async approveWrite(write: WriteRequest, requestSignal: AbortSignal): Promise<void> {
    const { sessionId } = write;
    const allowedDir = this.writesAllowed.get(sessionId);
    if (allowedDir !== undefined && isWithin(write.target, allowedDir)) return;
    const decision = await this.decide<WriteDecision | 'cancelled'>(sessionId, requestSignal, 'cancelled', (signal) => this.callbacks.approveWrite(write, signal));
    if (decision === 'allow_for_session') this.writesAllowed.set(sessionId, realDirectory(this.sessionCwds.get(sessionId)!));
    if (decision === 'allow_once' || decision === 'allow_for_session') return;
    const why = decision === 'reject' ? 'the developer declined it' : 'the request was cancelled before the developer answered';
    throw new acp.RequestError(-32603, `Write refused: '${write.target}' was not written because ${why}.`, { path: write.path });
  }

  /**
   * Runs `ask` as a pending decision: it settles with the answer, or with
   * `cancelled` when cancel() or the request's own signal comes first (then
   * the signal handed to `ask` aborts, and a late answer is ignored).
   */
  private decide<T>(sessionId: string, requestSignal: AbortSignal, cancelled: T, ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve) => {
      const controller = new AbortController();
      const settle = (value: T) => {
        if (!this.pending.delete(decision)) return;
        requestSignal.removeEventListener('abort', onRequestAbort);
        resolve(value);
      };
      const decision: PendingDecision = {
        sessionId,
        cancel: () => {
          settle(cancelled);
          controller.abort();
        },
      };
      const onRequestAbort = () => decision.cancel();
      this.pending.add(decision);
      if (requestSignal.aborted) return decision.cancel();
      requestSignal.addEventListener('abort', onRequestAbort, { once: true });
      ask(controller.signal).then(settle, (error: unknown) => {
        this.report(error, 'asking the developer for an ACP decision failed');
        settle(cancelled);
      });
    });
  }
}

/** fs/read_text_file: the file's text, or `limit` lines from 1-based `line`. */
async function readText(target: string, line?: number | null, limit?: number | null): Promise<string> {
  requireAbsolute(target);
  if (line != null && (!Number.isInteger(line) || line < 1)) throw acp.RequestError.invalidParams({ line }, 'line must be an integer of at least 1');
  if (limit != null && (!Number.isInteger(limit) || limit < 0)) throw acp.RequestError.invalidParams({ limit }, 'limit must be a non-negative integer');
  let data: Buffer | undefined;
  try {
    // The workspace is also a sandboxed terminal's to write, and a program there can put a FIFO or a link to a device
    // under a source file's name: read as untrusted (no blocking open, a regular file only), links followed as an
    // editor follows them. Before, each FIFO held one of libuv's four threads in open() for good, and /dev/zero was
    // read until the string could not grow.
    data = await readUntrustedFile(target, MAX_READ_BYTES, { followLinks: true });
  } catch (error) {
    if (error instanceof UntrustedFileError && error.size !== undefined) {
      throw acp.RequestError.invalidParams({ path: target, size: error.size }, `'${target}' is ${error.size} bytes; files over ${MAX_READ_BYTES} bytes are not read`);
    }
    throw acp.RequestError.internalError({ path: target }, `cannot read '${target}': ${(error as Error).message}`);
  }
  if (data === undefined) throw acp.RequestError.resourceNotFound(target);
  const text = data.toString('utf8');
  if (line == null && limit == null) return text;
  const start = (line ?? 1) - 1;
  return text
    .split('\n')
    .slice(start, limit == null ? undefined : start + limit)
    .join('\n');
}

/** Where a write would land, or a JSON-RPC error saying why that cannot be told. */
async function targetOf(requested: string): Promise<string> {
  try {
    return await resolveWriteTarget(requested);
  } catch (error) {
    throw acp.RequestError.invalidParams({ path: requested }, `cannot write '${requested}': ${(error as Error).message}`);
  }
}

/** fs/write_text_file, once allowed, at the resolved target. */
async function writeText(target: string, content: string): Promise<void> {
  try {
    await writeResolved(target, content);
  } catch (error) {
    throw acp.RequestError.internalError({ path: target }, `cannot write '${target}': ${(error as Error).message}`);
  }
}

/** A session directory's real path (it existed when the chat opened; if it went since, its name is all there is). */
function realDirectory(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** ACP paths are absolute; a relative one would resolve against ptydeck's own cwd. */
function requireAbsolute(target: string): void {
  if (!path.isAbsolute(target)) throw acp.RequestError.invalidParams({ path: target }, `path must be absolute, got '${target}'`);
}
