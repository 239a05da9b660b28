// The replay's Solid context: which session's recording is shown, fetched over the panel's socket.
import { createStore } from 'solid-js/store';
import { onCleanup } from 'solid-js';
import { createSimpleContext } from '../lib/create-context.jsx';
import { useTerminal } from '../terminal/terminal-context.jsx';

interface ReplayStore {
  /** The session replayed, or null when the replay is closed. */
  session: string | null;
  /** Its recording (asciicast v3), null while it is on its way. */
  recording: string | null;
}

/**
 * A replay of any session, lost ones included: the recording `ptydeck export`
 * writes (asciicast v3, a marker per command), asked for over the panel's
 * socket as the Timeline's download is, and played by asciinema's player.
 */
export const { Provider: ReplayProvider, use: useReplay } = createSimpleContext({
  name: 'Replay',
  init: (_props: Record<string, unknown>) => {
    const terminal = useTerminal();
    const channel = terminal.timelineChannel;
    const [store, setStore] = createStore<ReplayStore>({ session: null, recording: null });
    let pending: string | null = null;
    onCleanup(
      channel.onTimeline((message) => {
        if (message.type !== 'timeline.exported' || message.requestId !== pending) return;
        pending = null;
        setStore('recording', message.data);
      }),
    );
    // A refused recording (the session is gone) closes the replay; the terminal context shows the error.
    onCleanup(
      channel.onError((error) => {
        if (pending === null || error.requestId !== pending) return;
        pending = null;
        setStore({ session: null, recording: null });
      }),
    );
    return {
      state: store,
      /** Opens the replay of session `id`; false when offline. */
      open(id: string): boolean {
        const requestId = channel.exportRecording(id, 'asciicast-v3');
        if (requestId === null) return false;
        pending = requestId;
        setStore({ session: id, recording: null });
        return true;
      },
      close() {
        pending = null;
        setStore({ session: null, recording: null });
        terminal.focusActive();
      },
    };
  },
});
