// The panel protocol over a child's stdio in panel-channel frames (packages/core/src/remote/channel-frames.ts), shaped
// like the `ws` WebSocket that PanelClient drives: so a bench speaks to `ptydeck panel-channel` as a panel does.
import { EventEmitter } from 'node:events';
import { ChannelKind, ChannelReader, channelFrame } from '../../packages/core/dist/remote/channel-frames.js';

const OPEN = 1;
const CLOSED = 3;

export class ChannelSocket extends EventEmitter {
  OPEN = OPEN;
  CLOSED = CLOSED;
  readyState = OPEN;
  binaryType = 'nodebuffer';

  /** @param child a process whose stdin and stdout carry the channel (its stderr is the caller's) */
  constructor(child) {
    super();
    this.child = child;
    const reader = new ChannelReader((kind, payload) => this.emit('message', payload, kind === ChannelKind.Binary));
    child.stdout.on('data', (chunk) => {
      try {
        reader.write(chunk);
      } catch (error) {
        this.emit('error', error);
      }
    });
    child.stdin.on('error', () => {});
    child.once('close', () => {
      this.readyState = CLOSED;
      this.emit('close');
    });
  }

  send(text) {
    if (this.readyState === OPEN) this.child.stdin.write(channelFrame(ChannelKind.Text, text));
  }

  close() {
    this.child.stdin.end();
  }

  terminate() {
    this.child.kill('SIGKILL');
  }
}
