// The Timeline view's Solid context: every session's commands from the panel's socket, the filters, recordings.
import { createStore, reconcile } from 'solid-js/store';
import { onCleanup } from 'solid-js';
import type { CommandRecord, RecordingFormat } from '@ptydeck/contract';
import { createSimpleContext } from '../lib/create-context.jsx';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { filterCommands, fromSnapshot, NO_FILTER, upsertCommand, type TimelineFilter } from './timeline-rows.js';

interface TimelineStore {
  commands: CommandRecord[];
  open: boolean;
  filter: TimelineFilter;
}

/**
 * The commands every session ran, as the core reports them (a snapshot on
 * connect, then each start and end), the Timeline view's filters, and the
 * recordings it downloads. Subscribed from the start, so the snapshot a
 * connection begins with is never missed.
 */
export const { Provider: TimelineProvider, use: useTimeline } = createSimpleContext({
  name: 'Timeline',
  init: (_props: Record<string, unknown>) => {
    const terminal = useTerminal();
    const channel = terminal.timelineChannel;
    const [store, setStore] = createStore<TimelineStore>({ commands: [], open: false, filter: NO_FILTER });
    let commands: CommandRecord[] = [];
    const exports = new Map<string, string>();
    onCleanup(
      channel.onTimeline((message) => {
        if (message.type === 'timeline.snapshot') commands = fromSnapshot(commands, message.commands, message.host);
        else if (message.type === 'timeline.command') commands = upsertCommand(commands, message.command);
        else {
          const name = exports.get(message.requestId);
          if (name === undefined) return;
          exports.delete(message.requestId);
          download(name, message.data, message.format === 'text' ? 'text/plain' : 'application/x-asciicast');
          return;
        }
        setStore('commands', reconcile(commands, { key: 'id' }));
      }),
    );
    return {
      state: store,
      rows: () => filterCommands(store.commands, store.filter),
      toggle() {
        setStore('open', !store.open);
      },
      setFilter(change: Partial<TimelineFilter>) {
        setStore('filter', { ...store.filter, ...change });
      },
      /** Shows the command's session in its tab, scrolled to the command. */
      jumpTo(record: CommandRecord) {
        terminal.revealCommand(record.session, record.id);
      },
      /** Downloads a session's recording; false when offline. */
      exportSession(id: string, format: RecordingFormat): boolean {
        const requestId = channel.exportRecording(id, format);
        if (requestId === null) return false;
        exports.set(requestId, `ptydeck-${id.slice(0, 8)}.${format === 'text' ? 'txt' : 'cast'}`);
        return true;
      },
    };
  },
});

function download(name: string, data: string, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
