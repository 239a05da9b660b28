// Node's built-in modules that a short command (`ptydeck ls`, `url`, `attach`) loads only where it needs them.
import { createRequire } from 'node:module';

/**
 * Each is required on first use (a caller need not be async), and once: a
 * short command that imported them at its top would load them for nothing,
 * each a millisecond or more of a 45 ms start (bench figure 12). node:crypto
 * loads node:stream and a dozen modules of its own.
 */
const load = createRequire(import.meta.url);

let crypto: typeof import('node:crypto') | undefined;
let os: typeof import('node:os') | undefined;
let childProcess: typeof import('node:child_process') | undefined;
let net: typeof import('node:net') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  return (crypto ??= load('node:crypto') as typeof import('node:crypto'));
}

export function nodeOs(): typeof import('node:os') {
  return (os ??= load('node:os') as typeof import('node:os'));
}

export function nodeChildProcess(): typeof import('node:child_process') {
  return (childProcess ??= load('node:child_process') as typeof import('node:child_process'));
}

export function nodeNet(): typeof import('node:net') {
  return (net ??= load('node:net') as typeof import('node:net'));
}
