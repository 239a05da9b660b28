/**
 * The slice of a WebSocket the panel client uses. The client talks to this, not
 * to `WebSocket`, so its reconnect and resume logic runs under unit tests.
 */
export interface SocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onOpen(listener: () => void): void;
  onMessage(listener: (data: unknown) => void): void;
  /** Fires once when the socket ends, whether it never opened, failed or was closed. */
  onClose(listener: (event: { code: number; reason: string }) => void): void;
}

export type OpenSocket = (url: string, protocols: string[]) => SocketLike;

/** The browser's WebSocket behind SocketLike. Binary frames arrive as ArrayBuffers. */
export const openBrowserSocket: OpenSocket = (url, protocols) => {
  const socket = new WebSocket(url, protocols);
  socket.binaryType = 'arraybuffer';
  return {
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    onOpen: (listener) => socket.addEventListener('open', () => listener()),
    onMessage: (listener) => socket.addEventListener('message', (event) => listener(event.data)),
    // 'error' is always followed by 'close', so close alone is the end signal.
    onClose: (listener) => socket.addEventListener('close', (event) => listener({ code: event.code, reason: event.reason })),
  };
};
