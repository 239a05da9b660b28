/**
 * Node flags of the host process, given where a client starts it
 * (client/ensure-host.ts; the bench starts its hosts with them too).
 *
 * `--max-semi-space-size=8`: V8's young generation on a 64-bit host grows to
 * two 16 MiB semi-spaces, and a flood fills them with garbage between
 * scavenges (the frames and events of each chunk; the live heap in a flood is
 * about 20 MiB). Two of 8 MiB took 15 to 25 MiB off the host's peak under
 * figure 5's floods (bench/README.md, "Memory") at the same loop delay and
 * delivery speed. Smaller ones (2 MiB) cost more than they saved: what no
 * longer fits is promoted and waits for a full GC.
 */
export const HOST_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];
