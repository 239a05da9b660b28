import { describe, expect, it } from 'vitest';
import { Emitter } from '@ptydeck/contract';
import type { ResyncEvent } from '../connection/panel-client.js';
import { SessionStreams, type StreamSink } from './session-streams.js';

class FakeClient {
  calls: string[] = [];
  readonly output = new Emitter<{ id: string; data: Uint8Array; next: number }>();
  readonly resync = new Emitter<ResyncEvent>();
  readonly onOutput = this.output.on;
  readonly onResync = this.resync.on;
  attach(id: string) { this.calls.push(`attach ${id}`); }
  detach(id: string) { this.calls.push(`detach ${id}`); }
  refresh(id: string) { this.calls.push(`refresh ${id}`); }
  ack(id: string, cursor: number) { this.calls.push(`ack ${id} ${cursor}`); }
  emit(id: string, text: string, next: number) { this.output.fire({ id, data: new TextEncoder().encode(text), next }); }
  screen(id: string, screen: string, cursor: number) { this.resync.fire({ id, screen, cursor, skipped: 0, marks: [] }); }
}

function recorder(): StreamSink & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    write: (data, next) => seen.push(`${new TextDecoder().decode(data)}@${next}`),
    restore: (screen, cursor) => seen.push(`screen:${screen}@${cursor}`),
  };
}

describe('SessionStreams', () => {
  it('attaches once for the first view and detaches after the last', () => {
    const client = new FakeClient();
    const streams = new SessionStreams(client);
    const first = streams.subscribe('s', recorder());
    const second = streams.subscribe('s', recorder());
    first.dispose();
    first.dispose();
    second.dispose();
    expect(client.calls).toEqual(['attach s', 'refresh s', 'detach s']);
  });

  it('gives a late view the screen without restoring a view already at its cursor', () => {
    const client = new FakeClient();
    const streams = new SessionStreams(client);
    const tab = recorder();
    streams.subscribe('s', tab);
    client.screen('s', '$ ', 2);
    client.emit('s', 'ls', 4);
    const card = recorder();
    streams.subscribe('s', card);
    // In flight before the new screen: the tab takes it, the card waits for its screen.
    client.emit('s', '\r\n', 6);
    client.screen('s', '$ ls\r\n', 6);
    client.emit('s', 'a', 7);
    expect(tab.seen).toEqual(['screen:$ @2', 'ls@4', '\r\n@6', 'a@7']);
    expect(card.seen).toEqual(['screen:$ ls\r\n@6', 'a@7']);
  });

  it('restores a view that is behind the new screen', () => {
    const client = new FakeClient();
    const streams = new SessionStreams(client);
    const tab = recorder();
    streams.subscribe('s', tab);
    client.screen('s', '', 0);
    client.emit('s', 'x', 1);
    streams.subscribe('s', recorder());
    client.screen('s', 'xyz', 3);
    expect(tab.seen).toEqual(['screen:@0', 'x@1', 'screen:xyz@3']);
  });

  it('acknowledges only what the slowest view parsed, and catches up when it leaves', () => {
    const client = new FakeClient();
    const streams = new SessionStreams(client);
    const fast = streams.subscribe('s', recorder());
    const slow = streams.subscribe('s', recorder());
    client.screen('s', '', 0);
    fast.parsed(100);
    expect(client.calls.filter((call) => call.startsWith('ack'))).toEqual([]);
    slow.parsed(40);
    fast.parsed(200);
    slow.dispose();
    expect(client.calls.filter((call) => call.startsWith('ack'))).toEqual(['ack s 40', 'ack s 200']);
  });

  it('ignores output for sessions nobody watches', () => {
    const client = new FakeClient();
    const streams = new SessionStreams(client);
    const view = recorder();
    streams.subscribe('a', view);
    client.screen('a', '', 0);
    client.emit('b', 'x', 1);
    client.screen('b', 'y', 1);
    expect(view.seen).toEqual(['screen:@0']);
    streams.dispose();
    client.emit('a', 'x', 1);
    expect(view.seen).toEqual(['screen:@0']);
  });
});
