import { WaitFirst } from '../common/wait-first.js';
import type { PtyService } from './types.js';

/**
 * Spawns take turns at the event loop, as floods do (flood-turns.ts).
 *
 * node-pty spawns synchronously: the fork, the terminal's set-up and the fd
 * hygiene before it take milliseconds a session, on the loop. Requests that
 * arrive together (a hundred agents' terminal_create, a panel restoring its
 * tabs) were each served in the turn they arrived in, so one turn could hold
 * a hundred spawns, and every running session's echo waited for all of them
 * (bench figures 5 and 9). Here a creation waits in a queue, and each turn
 * of the loop runs queued creations for at most TURN_MS (at least one), so
 * keystrokes and output of the running sessions are served between them.
 *
 * A creation is queued whole, with the checks that decide whether it may
 * happen (quotas), so that two queued ones never both pass a check that the
 * first one's session would have failed.
 */
export class SpawnTurns {
  private readonly queue: Array<() => boolean> = [];
  private scheduled: NodeJS.Immediate | undefined;
  /** Whether the head of the queue waits for what it needs first (WaitFirst): nothing runs until it is ready. */
  private waiting = false;

  constructor(private readonly turnMs = TURN_MS) {}

  /**
   * Runs `create` in a later turn, within that turn's budget; settles with what it returned or threw. A `create` that
   * throws WaitFirst is run again once it is ready, before any creation queued after it: sessions are made in the order
   * they were asked for.
   */
  run<T>(create: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push(() => {
        try {
          resolve(create());
        } catch (error) {
          if (error instanceof WaitFirst) {
            this.wait(error, reject);
            return false;
          }
          reject(error);
        }
        return true;
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.waiting && this.queue.length > 0) this.scheduled ??= setImmediate(() => this.turn());
  }

  private wait(first: WaitFirst, reject: (error: unknown) => void): void {
    this.waiting = true;
    const done = () => {
      this.waiting = false;
      this.schedule();
    };
    first.ready().then(done, (error: unknown) => {
      this.queue.shift();
      reject(error);
      done();
    });
  }

  private turn(): void {
    this.scheduled = undefined;
    const until = performance.now() + this.turnMs;
    do {
      if (!this.queue[0]!()) return;
      this.queue.shift();
    } while (this.queue.length > 0 && performance.now() < until);
    this.schedule();
  }
}

/** Spawning time a turn of the loop may spend: well under a frame, a few sessions' worth. */
export const TURN_MS = 8;

const turnsByService = new WeakMap<PtyService, SpawnTurns>();

/** The spawn queue every creator of sessions in `service` shares: turns are fair only if all wait in one. */
export function spawnTurnsOf(service: PtyService): SpawnTurns {
  let turns = turnsByService.get(service);
  if (!turns) turnsByService.set(service, (turns = new SpawnTurns()));
  return turns;
}
