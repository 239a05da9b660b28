// The replay overlay: a session's recording in asciinema's player, with play, pause, speed and next command.
import { createEffect, createSignal, onCleanup, onMount, Show } from 'solid-js';
import { useReplay } from '../replay/replay-context.jsx';
import { markerAt, markerText, type ReplayMarker } from '../replay/replay-markers.js';
import type { ReplayPlayer } from '../replay/replay-player.js';
import { useTerminal } from '../terminal/terminal-context.jsx';

const SPEEDS = [0.5, 1, 2, 4, 8];

export function ReplayOverlay() {
  const replay = useReplay();
  return (
    <Show when={replay.state.session}>
      {(id) => <ReplayDialog id={id()} />}
    </Show>
  );
}

function ReplayDialog(props: { id: string }) {
  const replay = useReplay();
  const terminal = useTerminal();
  const title = () => terminal.state.sessions.find((session) => session.id === props.id)?.title ?? props.id.slice(0, 8);
  const [playing, setPlaying] = createSignal(false);
  const [speed, setSpeed] = createSignal(1);
  const [markers, setMarkers] = createSignal<ReplayMarker[]>([]);
  const [at, setAt] = createSignal(-1);
  const [failed, setFailed] = createSignal<string | null>(null);
  // Whether a player is mounted: until then Play and Next command would have nothing to act on, and a click on them was lost.
  const [ready, setReady] = createSignal(false);
  let container!: HTMLDivElement;
  let dialog!: HTMLDivElement;
  let current: ReplayPlayer | undefined;
  // Bumped on every mount: a player still loading when it is replaced reports nothing.
  let generation = 0;

  /** (Re)mounts the player: asciinema's player takes its speed only when made, so a new speed is a new player at the same time. */
  async function mount(recording: string, startAt: number, autoPlay: boolean): Promise<void> {
    const mine = ++generation;
    current?.player.dispose();
    current = undefined;
    setReady(false);
    container.replaceChildren();
    try {
      const { mountPlayer } = await import('../replay/replay-player.js');
      if (mine !== generation) return;
      const made = mountPlayer(recording, container, { speed: speed(), startAt, autoPlay });
      current = made;
      made.onMarkers((list) => mine === generation && setMarkers(list));
      made.player.addEventListener('playing', () => mine === generation && setPlaying(true));
      made.player.addEventListener('pause', () => mine === generation && (setPlaying(false), locate()));
      made.player.addEventListener('ended', () => mine === generation && (setPlaying(false), locate()));
      made.player.addEventListener('marker', (event) => mine === generation && setAt(event.index));
      setReady(true);
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    }
  }

  function locate(): void {
    if (current) setAt(markerAt(markers(), current.player.getCurrentTime()));
  }

  createEffect(() => {
    const recording = replay.state.recording;
    if (recording !== null) void mount(recording, 0, false);
  });

  function togglePlay(): void {
    const player = current?.player;
    if (!player) return;
    void (playing() ? player.pause() : player.play()).catch(() => {});
  }

  async function nextCommand(): Promise<void> {
    const player = current?.player;
    if (!player) return;
    if (playing()) await player.pause();
    await player.seek({ marker: 'next' });
    locate();
  }

  function changeSpeed(value: number): void {
    const recording = replay.state.recording;
    const time = current?.player.getCurrentTime() ?? 0;
    const wasPlaying = playing();
    setSpeed(value);
    setPlaying(false);
    if (recording !== null) void mount(recording, time, wasPlaying);
  }

  onMount(() => {
    // Escape closes the replay wherever the keyboard is in it (the player's own keys included).
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      replay.close();
    };
    window.addEventListener('keydown', onKey, true);
    dialog.focus();
    onCleanup(() => window.removeEventListener('keydown', onKey, true));
  });
  onCleanup(() => {
    generation++;
    current?.player.dispose();
  });

  return (
    <div class="replay-backdrop" data-testid="replay">
      <div ref={dialog} class="replay" role="dialog" aria-modal="true" aria-label={`Replay of ${title()}`} tabindex="-1">
        <header class="replay-bar">
          <strong class="replay-title">Replay: {title()}</strong>
          <button type="button" class="button ghost" data-testid="replay-play" disabled={!ready()} onClick={togglePlay}>
            {playing() ? 'Pause' : 'Play'}
          </button>
          <label class="replay-speed">
            Speed
            <select data-testid="replay-speed" value={String(speed())} onChange={(e) => changeSpeed(Number(e.currentTarget.value))}>
              {SPEEDS.map((value) => <option value={String(value)}>{value}×</option>)}
            </select>
          </label>
          <button type="button" class="button ghost" data-testid="replay-next" disabled={!ready()} title="Jump to the next command" onClick={() => void nextCommand()}>
            Next command
          </button>
          <span class="replay-where" data-testid="replay-where">{markers().length > 0 || replay.state.recording !== null ? markerText(markers(), at()) : ''}</span>
          <button type="button" class="icon-button" data-testid="replay-close" aria-label="Close the replay" title="Close (Escape)" onClick={() => replay.close()}>✕</button>
        </header>
        <Show when={replay.state.recording === null && failed() === null}>
          <p class="replay-loading">Loading the recording…</p>
        </Show>
        <Show when={failed()}>{(message) => <p class="replay-loading" role="alert">The player could not start: {message()}</p>}</Show>
        <div ref={container} class="replay-player" data-testid="replay-player" />
      </div>
    </div>
  );
}
