/**
 * Small stand-ins for Electron objects, enough for the main-process modules' tests.
 * They behave like the real ones where the modules depend on it: app.quit() emits
 * before-quit and only "quits" when no listener prevented it.
 */
import { EventEmitter } from 'node:events';

/** An Electron-style event: listeners call preventDefault(). */
export function fakeEvent<T extends object>(params: T = {} as T): T & { preventDefault(): void; defaultPrevented: boolean } {
  const event = {
    ...params,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

export class FakeApp extends EventEmitter {
  quitted = false;
  exitCode: number | null = null;
  readonly calls: string[] = [];
  singleInstance = true;

  quit(): void {
    this.calls.push('quit');
    const event = fakeEvent();
    this.emit('before-quit', event);
    if (event.defaultPrevented) return;
    this.quitted = true;
    this.emit('quit', fakeEvent(), 0);
  }
  exit(code = 0): void {
    this.calls.push(`exit:${code}`);
    this.exitCode = code;
  }
  whenReady(): Promise<void> {
    this.calls.push('whenReady');
    return Promise.resolve();
  }
  enableSandbox(): void {
    this.calls.push('enableSandbox');
  }
  setName(name: string): void {
    this.calls.push(`setName:${name}`);
  }
  requestSingleInstanceLock(): boolean {
    return this.singleInstance;
  }
}

/** A WebContents with the window-open handler captured and navigation events emittable. */
export class FakeContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  /** Emits `name` with an event carrying `url`; returns whether a guard prevented it. */
  navigate(name: 'will-navigate' | 'will-frame-navigate' | 'will-redirect', url: string): boolean {
    const event = fakeEvent({ url });
    this.emit(name, event);
    return event.defaultPrevented;
  }
}

type PermissionRequestHandler = (contents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
type HeadersListener = (
  details: { url: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
) => void;

export class FakeSession extends EventEmitter {
  permissionRequestHandler: PermissionRequestHandler | null = null;
  permissionCheckHandler: ((...args: unknown[]) => boolean) | null = null;
  headersListener: HeadersListener | null = null;
  readonly webRequest = {
    onHeadersReceived: (listener: HeadersListener) => {
      this.headersListener = listener;
    },
  };
  setPermissionRequestHandler(handler: PermissionRequestHandler): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: (...args: unknown[]) => boolean): void {
    this.permissionCheckHandler = handler;
  }
  /** Runs the headers listener synchronously and returns what it answered. */
  receive(url: string, responseHeaders: Record<string, string[]> = {}): { responseHeaders?: Record<string, string[]> } {
    let answer: { responseHeaders?: Record<string, string[]> } | undefined;
    if (this.headersListener === null) throw new Error('no onHeadersReceived listener');
    this.headersListener({ url, responseHeaders }, (response) => {
      answer = response;
    });
    if (answer === undefined) throw new Error('the onHeadersReceived listener did not call back');
    return answer;
  }
}

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;

export class FakeIpcMain {
  readonly handlers = new Map<string, InvokeHandler>();
  handle(channel: string, handler: InvokeHandler): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** Calls the handler as ipcMain would for an invoke from a frame at `frameUrl`. */
  async invoke(channel: string, sender: { url: string; parent?: object | null } | null, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (handler === undefined) throw new Error(`no handler for ${channel}`);
    const senderFrame = sender === null ? null : { url: sender.url, parent: sender.parent ?? null };
    return handler({ senderFrame }, ...args);
  }
}

/** An Electron Notification: records its options and whether it was shown; emit('click') clicks it. */
export class FakeNotification extends EventEmitter {
  shown = false;
  constructor(readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    this.shown = true;
  }
}
