// The compare-*.mjs tools run each compared checkout's own bench code against its own build: what they import of it.
import path from 'node:path';

/**
 * Each checkout of `trees` (paths, comma-separated) with its bench harness, its hosts and its thread CPU reader,
 * named `<index>:<directory>` (two worktrees may share a directory's name).
 */
export async function loadCheckouts(trees) {
  return Promise.all(
    trees.split(',').map(async (tree, i) => ({
      name: `${i}:${path.basename(path.resolve(tree))}`,
      harness: await import(path.resolve(tree, 'bench/lib/harness.mjs')),
      hosts: await import(path.resolve(tree, 'bench/lib/hosts.mjs')),
      threads: await import(path.resolve(tree, 'bench/lib/thread-cpu.mjs')),
    })),
  );
}
