/** A screen's terminal went with its worker: what it parsed is gone, and it answers nothing more. */
export class ScreenLostError extends Error {
  override readonly name = 'ScreenLostError';

  /**
   * `stopped`: the screens were disposed on purpose (the host is stopping), not
   * lost to a fault: a caller that falls back has nothing to report then.
   */
  constructor(
    message: string,
    readonly stopped = false,
  ) {
    super(message);
  }
}
