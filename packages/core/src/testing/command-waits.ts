// Event-driven waits on the timeline's command records, for tests: each ends on the record that proves it.
import type { CommandRecord } from '@ptydeck/contract';
import type { Timeline } from '../timeline/timeline.js';

/** Resolves with the record of `command` once the shell reported how it ended. */
export function commandDone(timeline: Timeline, command: string): Promise<CommandRecord> {
  return new Promise((resolve) => {
    const off = timeline.onCommand((record) => {
      if (record.command !== command || record.status !== 'done') return;
      off();
      resolve(record);
    });
  });
}
