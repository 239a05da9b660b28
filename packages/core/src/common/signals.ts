// How CLI commands stop on SIGINT and SIGTERM: first end the sessions, a second signal exits at once.
import { EXIT_SIGINT, EXIT_SIGTERM } from './exit-codes.js';

export type StopReason = 'SIGINT' | 'SIGTERM' | 'eof';

/**
 * Resolves with the first SIGINT or SIGTERM. Installing the listeners replaces
 * Node's default of dying on the spot, so the caller can end its sessions; a
 * second signal while shutting down exits at once.
 */
export function nextSignal(): { stopped: Promise<StopReason>; dispose(): void } {
  let resolve!: (reason: StopReason) => void;
  const stopped = new Promise<StopReason>((r) => (resolve = r));
  let received: StopReason | undefined;
  const on = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (received) process.exit(exitCodeFor(signal));
    received = signal;
    resolve(signal);
  };
  const onInt = on('SIGINT');
  const onTerm = on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

export function exitCodeFor(reason: StopReason): number {
  return reason === 'SIGINT' ? EXIT_SIGINT : reason === 'SIGTERM' ? EXIT_SIGTERM : 0;
}
