/** A screen's terminal went with its worker: what it parsed is gone, and it answers nothing more. */
export class ScreenLostError extends Error {
  override readonly name = 'ScreenLostError';
}
