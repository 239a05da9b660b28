import type { PanelSocket } from '@ptydeck/contract';

/**
 * The slice of a WebSocket the panel client uses: the contract's PanelSocket
 * and what opening and closing takes. The client talks to this, not to
 * `WebSocket`, so its reconnect and resume logic runs under unit tests.
 */
export interface SocketLike extends PanelSocket<unknown> {
  close(code?: number, reason?: string): void;
  onOpen(listener: () => void): void;
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
    onMessage: (listener) => listen(socket, 'message', (event) => listener(event.data)),
    // 'error' is always followed by 'close', so close alone is the end signal.
    onClose: (listener) => listen(socket, 'close', (event) => listener({ code: event.code, reason: event.reason })),
  };
};

function listen<K extends keyof WebSocketEventMap>(socket: WebSocket, type: K, listener: (event: WebSocketEventMap[K]) => void): () => void {
  socket.addEventListener(type, listener);
  return () => socket.removeEventListener(type, listener);
}
