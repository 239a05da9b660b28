// Event-driven waits for tests and tools that drive a PtyService: no sleeps,
// each wait ends on the event that proves the condition (or a timeout that
// reports what was seen, so a failure explains itself).
import type { SessionId, SessionInfo } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';

/** Resolves with the session's whole output once `pattern` appears in it (decoded as UTF-8). */
export function waitForOutput(service: PtyService, id: SessionId, pattern: string | RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const decode = () => Buffer.from(service.read(id, { cursor: 0 }).data).toString('utf8');
    const matches = (text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
    const finish = (error?: Error) => {
      clearTimeout(timer);
      offData();
      offExit();
      if (error) reject(error);
      else resolve(decode());
    };
    const check = () => {
      if (matches(decode())) finish();
    };
    const offData = service.on('pty.data', (event) => {
      if (event.id === id) check();
    });
    const offExit = service.on('pty.exited', (event) => {
      if (event.id === id && !matches(decode())) finish(new Error(`session exited before output matched ${String(pattern)}; output: ${JSON.stringify(decode().slice(-2000))}`));
    });
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${String(pattern)}; output: ${JSON.stringify(decode().slice(-2000))}`)), timeoutMs);
    check();
  });
}

/** Resolves with the session's exit once `pty.exited` has fired (immediately if it already has). */
export function waitForExit(service: PtyService, id: SessionId, timeoutMs = 30_000): Promise<{ exitCode: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const info = service.get(id);
    if (info?.status === 'exited') return resolve({ exitCode: info.exitCode, signal: info.signal });
    const timer = setTimeout(() => {
      off();
      reject(new Error(`session ${id} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = service.on('pty.exited', (event) => {
      if (event.id !== id) return;
      clearTimeout(timer);
      off();
      resolve({ exitCode: event.exitCode, signal: event.signal });
    });
  });
}

/** Where a session's info is read and its changes heard: the PTY service, or SessionFacts for what was learned of it. */
export type SessionInfoSource = Pick<PtyService, 'get'> & { on(event: 'pty.updated', listener: (event: { info: SessionInfo }) => void): () => void };

/** Resolves with the session's info once `holds` is true of it: now, or at a later `pty.updated`. */
export function waitForInfo(service: SessionInfoSource, id: SessionId, holds: (info: SessionInfo) => boolean, timeoutMs = 20_000): Promise<SessionInfo> {
  return new Promise((resolve, reject) => {
    const current = service.get(id);
    if (current && holds(current)) return resolve(current);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`session ${id}'s info did not change as expected within ${timeoutMs} ms; it is ${JSON.stringify(service.get(id))}`));
    }, timeoutMs);
    const off = service.on('pty.updated', (event) => {
      if (event.info.id !== id || !holds(event.info)) return;
      clearTimeout(timer);
      off();
      resolve(event.info);
    });
  });
}

/** Every retained byte of the session's output, as bytes. */
export function readAll(service: PtyService, id: SessionId): Buffer {
  const result = service.read(id, { cursor: 0 });
  return Buffer.from(result.data.buffer, result.data.byteOffset, result.data.byteLength);
}
