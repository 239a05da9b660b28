// asciinema's player, loaded with the replay (a chunk of its own, its stylesheet from the bundle, none inline).
import 'asciinema-player/dist/bundle/asciinema-player.css';
import { create, type Player } from 'asciinema-player';
import type { ReplayMarker } from './replay-markers.js';

export interface ReplayPlayer {
  readonly player: Player;
  /** Fires with the recording's markers once it is loaded. */
  onMarkers(listener: (markers: ReplayMarker[]) => void): void;
}

/**
 * Mounts a player for an asciicast v3 `recording` in `container`, at `startAt`
 * seconds and `speed`. Idle stretches longer than 5 s play as 5 s: a session
 * left at its prompt for an hour would otherwise replay as an hour.
 */
export function mountPlayer(recording: string, container: HTMLElement, options: { speed: number; startAt: number; autoPlay: boolean }): ReplayPlayer {
  const player = create({ data: recording }, container, {
    speed: options.speed,
    startAt: options.startAt,
    autoPlay: options.autoPlay,
    preload: true,
    idleTimeLimit: 5,
    fit: 'width',
    controls: true,
    terminalFontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
  });
  return {
    player,
    onMarkers(listener) {
      // The core reports its metadata (duration, markers) through the same listener list; the typings name only the common events.
      const on = player.addEventListener as (name: string, handler: (event: { markers?: ReplayMarker[] }) => void) => void;
      on('metadata', (event) => listener(event.markers ?? []));
    },
  };
}
