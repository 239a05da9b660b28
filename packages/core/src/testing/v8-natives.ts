// V8's own view of a function, for tests of code that must stay optimized (--allow-natives-syntax, set at run time).
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--allow-natives-syntax');

// The natives are syntax: only code compiled after the flag is set can call them.
const prepare = new Function('f', '%PrepareFunctionForOptimization(f)') as (f: unknown) => void;
const optimizeOnNextCall = new Function('f', '%OptimizeFunctionOnNextCall(f)') as (f: unknown) => void;
const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: unknown) => number;
/** V8's OptimizationStatus::kOptimized. */
const OPTIMIZED = 1 << 4;

/**
 * Optimizes `fn` as V8 would once it is hot: `warm` runs it a few times to
 * gather type feedback, then once more to compile it with TurboFan. Throws if
 * it did not end up optimized.
 */
export function optimizeAfter(fn: unknown, warm: () => void): void {
  prepare(fn);
  warm();
  warm();
  optimizeOnNextCall(fn);
  warm();
  if (!isOptimized(fn)) throw new Error('V8 did not optimize the function');
}

/** Whether `fn` runs optimized code now (false once V8 deoptimized it). */
export function isOptimized(fn: unknown): boolean {
  return (status(fn) & OPTIMIZED) !== 0;
}

const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;

/** Whether two objects have one shape (V8's map): code compiled for one takes the other without deoptimizing. */
export function sameShape(a: object, b: object): boolean {
  return haveSameMap(a, b);
}
