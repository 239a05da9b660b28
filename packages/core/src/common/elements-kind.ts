// Empty arrays that already hold what they will hold, so the first element pushed does not change their shape.
//
// Why: V8 makes a fresh `[]` an array of small integers. The first object (or fraction, or epoch time)
// pushed into it changes its map, and when that push runs in optimized code compiled for older arrays
// that had already changed (a new session's log or viewer, long after the delivery path was compiled),
// V8 throws the code away: the path runs unoptimized again until V8 recompiles it, tens of MB of output
// later (bench/README.md, "The delivery path's deoptimizations"). An elements kind never goes back, so
// these arrays keep theirs once their one element is popped. Each kind has its own literal: V8 tracks
// a literal's kinds, and one literal that once held an object makes its later arrays generic.

/** An empty array for objects. */
export function emptyObjectArray<T extends object>(): T[] {
  const array: object[] = [{}];
  array.pop();
  return array as T[];
}

/** An empty array for numbers that are not all small integers (times, say). */
export function emptyDoubleArray(): number[] {
  const array = [0.5];
  array.pop();
  return array;
}
