// Feeds one xterm.js terminal its session's stream, acknowledging output as it is parsed so the server's flow
// control works.
import type { Terminal } from '@xterm/xterm';
import type { StreamSink } from './session-streams.js';
import { WriteFlow } from './write-flow.js';

/**
 * Feeds one xterm.js terminal a session's stream: output through the write
 * flow (acknowledged as parsed), screens restored through the same queue.
 * The panel's tab view and a chat card's mini-terminal each own one.
 */
export class TerminalFeed implements StreamSink {
  private readonly flow: WriteFlow;

  constructor(
    private readonly terminal: Pick<Terminal, 'write'>,
    /** Parsed output up to `cursor` (batched): the server's flow control. */
    ack: (cursor: number) => void,
  ) {
    this.flow = new WriteFlow({ write: (data, parsed) => terminal.write(data, parsed), ack });
  }

  /**
   * Output bytes, in arrival order, ending at cursor `next`; xterm.js joins
   * UTF-8 sequences split across frames.
   */
  write(data: Uint8Array, next: number): void {
    this.flow.push(data, next);
  }

  /**
   * Replaces the screen with a server snapshot. RIS goes through the write
   * queue (unlike `terminal.reset()`, which acts at once) so output still
   * queued from before cannot land on top of the restored screen.
   */
  restore(screen: string, cursor: number): void {
    this.flow.restored(cursor);
    this.terminal.write('\x1bc');
    this.terminal.write(screen);
  }
}
