/**
 * The error every bridge handler throws. Electron forwards only the message to the
 * renderer's rejected `invoke` promise, so the code is repeated at the start of the
 * message ("untrusted_sender: ...") for the renderer to match on.
 */
export type BridgeErrorCode = 'untrusted_sender' | 'invalid_url' | 'invalid_notification' | 'invalid_clipboard_text';

export class BridgeError extends Error {
  override readonly name = 'BridgeError';

  constructor(
    readonly code: BridgeErrorCode,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}
