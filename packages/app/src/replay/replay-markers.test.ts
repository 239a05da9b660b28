import { describe, expect, it } from 'vitest';
import { markerAt, markerText, type ReplayMarker } from './replay-markers.js';

const markers: ReplayMarker[] = [
  [1.5, 'vim notes.txt'],
  [4, ''],
  [9.25, 'echo done'],
];

describe('where a replay is', () => {
  it('is the last marker at or before the time, a seek that lands on one included', () => {
    expect(markerAt(markers, 0)).toBe(-1);
    expect(markerAt(markers, 1.5)).toBe(0);
    expect(markerAt(markers, 1.4995)).toBe(0);
    expect(markerAt(markers, 8)).toBe(1);
    expect(markerAt(markers, 100)).toBe(2);
    expect(markerAt([], 3)).toBe(-1);
  });

  it('says which command, and one kept out of the history as such', () => {
    expect(markerText(markers, 0)).toBe('command 1 of 3: vim notes.txt');
    expect(markerText(markers, 1)).toBe("command 2 of 3: (not in the shell's history)");
    expect(markerText(markers, -1)).toBe('before the first of 3 commands');
    expect(markerText([], -1)).toBe('no commands recorded');
  });
});
