import v8 from 'node:v8';

/**
 * Node flags of the host process, given where a client starts it
 * (client/ensure-host.ts; the bench starts its hosts with them too).
 *
 * `--max-semi-space-size=4`: V8's young generation on a 64-bit host grows to
 * two 16 MiB semi-spaces, and a flood fills them with garbage between
 * scavenges (the frames and events of each chunk; the live heap in a flood is
 * about 20 MiB). Two of 4 MiB took about 25 MiB off the host's peak under
 * figure 5's floods (bench/README.md, "Memory") at the same loop delay. The
 * flag would apply to every isolate, overriding what a worker asks for; the
 * host clears it once its own isolate is made (letWorkersSizeYoungGeneration),
 * so the screen worker and the read thread keep their own, smaller young
 * generations. For all isolates at once, 8 MiB semi-spaces cost the worker
 * 8 MiB more and saved less in all, and 2 MiB ones cost more than they saved
 * (when the logs kept every chunk): what no longer fits is promoted and
 * waits for a full GC.
 *
 * `--heap-growing-percent=10`: after a full GC, V8 lets an isolate's old
 * space grow to up to twice what survived before the next one, and the screen
 * worker's heap was half garbage at figure 5's peak. Growing by 10% collects
 * it sooner: 15 MiB off the peak (248 and 253 against 263 and 268 MiB,
 * alternated), the worker's heap and buffers most, at the same echo and read
 * latency and about 3% more CPU to parse. `--optimize-for-size` took 40 MiB
 * off but pins the young generation to 1 MiB: every flood's frames were
 * promoted, the floods took up to twice as long and echo p99 about doubled.
 */
export const HOST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=10'];

/**
 * Lets each worker thread started from now on size its young generation by
 * its own `resourceLimits.maxYoungGenerationSizeMb`. V8 sizes an isolate's
 * semi-spaces when it makes the isolate, and a `--max-semi-space-size` flag
 * overrides what the worker asked for: with HOST_NODE_FLAGS the screen worker
 * and the read thread got the main thread's 2 x 4 MiB, which under figure 5's
 * flood they filled with garbage (the screen worker's parse) or barely used.
 * The main isolate keeps what the command line gave it (it was made before
 * this); the flag is cleared only when the command line set it, so every
 * worker the host starts names its own size (see the workers' options).
 */
export function letWorkersSizeYoungGeneration(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((flag) => /^--max[-_]semi[-_]space[-_]size(=|$)/.test(flag))) v8.setFlagsFromString('--max-semi-space-size=0');
}

/**
 * The host's allocator settings, put in its environment by whoever starts it
 * (glibc reads them once, at the process's start; elsewhere they mean
 * nothing). `MALLOC_MMAP_THRESHOLD_=65536`: glibc serves an allocation of at
 * least this size with a mapping of its own, returned to the kernel when
 * freed. Without it the threshold starts at 128 KiB and rises to the size
 * of every larger buffer freed (a screen's 1 MiB slice), up to 32 MiB, so the
 * 64 KiB read batches, PTY read buffers and screen slices of a flood came
 * from the heap and the threads' arenas, and freed they stayed in the
 * process's RSS, the more the slower the host ran: figure 5's peak was 242 to
 * 266 MiB at load 2 to 14, and 236 to 244 with it (bench/README.md, "Memory").
 * Each fresh 64 KiB buffer now costs a mapping, about 14 us.
 */
export const HOST_ALLOCATOR_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '65536' };

/**
 * Names the starter added to the host's environment from HOST_ALLOCATOR_ENV,
 * comma-separated: the host takes them out of its environment once started
 * (shedHostAllocatorEnv), so they tune the host and not the programs its
 * sessions run.
 */
export const HOST_ADDED_ENV = 'PTYDECK_HOST_ADDED_ENV';

/** `env` for a host process: HOST_ALLOCATOR_ENV's settings it does not set already, and which ones were added. */
export function withHostAllocator<T extends Record<string, string | undefined>>(env: T): T {
  const added = Object.keys(HOST_ALLOCATOR_ENV).filter((name) => env[name] === undefined);
  const result: Record<string, string | undefined> = { ...env };
  for (const name of added) result[name] = HOST_ALLOCATOR_ENV[name];
  if (added.length > 0) result[HOST_ADDED_ENV] = added.join(',');
  else delete result[HOST_ADDED_ENV];
  return result as T;
}

/**
 * Takes the settings the starter added (HOST_ADDED_ENV) out of this
 * process's environment, which sessions, chats and children inherit from.
 * Only names of HOST_ALLOCATOR_ENV: the list is read from the environment.
 */
export function shedHostAllocatorEnv(env: Record<string, string | undefined> = process.env): void {
  const added = env[HOST_ADDED_ENV];
  if (added === undefined) return;
  for (const name of added.split(',')) if (Object.hasOwn(HOST_ALLOCATOR_ENV, name)) delete env[name];
  delete env[HOST_ADDED_ENV];
}
