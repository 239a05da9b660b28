/**
 * Node flags of the host process, given where a client starts it
 * (client/ensure-host.ts; the bench starts its hosts with them too).
 *
 * `--max-semi-space-size=4`: V8's young generation on a 64-bit host grows to
 * two 16 MiB semi-spaces, and a flood fills them with garbage between
 * scavenges (the frames and events of each chunk; the live heap in a flood is
 * about 20 MiB). Two of 4 MiB took about 25 MiB off the host's peak under
 * figure 5's floods (bench/README.md, "Memory") at the same loop delay. The
 * flag applies to every isolate, so it also sets the screen worker's (whose
 * resourceLimits asked for the same 8 MiB) and the read thread's: 8 MiB
 * semi-spaces cost the worker 8 MiB more and saved less in all, and 2 MiB
 * ones cost more than they saved: what no longer fits is promoted and waits
 * for a full GC.
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
