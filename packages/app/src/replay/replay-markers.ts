// Which command a replay is at: the last marker at or before the player's time.

/** A marker as asciinema's player reports it: seconds from the start, and its label (the command line). */
export type ReplayMarker = [time: number, label: string];

/** The index of the last marker at or before `time` (seconds), or -1 before the first. */
export function markerAt(markers: readonly ReplayMarker[], time: number): number {
  let at = -1;
  // A seek lands on a marker's time as the player rounds it: a millisecond's slack.
  for (let i = 0; i < markers.length && markers[i]![0] <= time + 0.001; i++) at = i;
  return at;
}

/** What the replay says of where it is: "command 2 of 3: make test", or where it stands before the first. */
export function markerText(markers: readonly ReplayMarker[], index: number): string {
  if (markers.length === 0) return 'no commands recorded';
  if (index < 0) return `before the first of ${markers.length} commands`;
  const label = markers[index]![1] || "(not in the shell's history)";
  return `command ${index + 1} of ${markers.length}: ${label}`;
}
