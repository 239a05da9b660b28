// Figure 11's machine: sessions that each run a shell with `children` `sleep` children, so a process scan has
// a realistic table to walk. Shared by the figure (fig11-process-scan.mjs) and its turn probe (list-turns.mjs).

/**
 * Starts `count` sessions in `service`, each a bash whose `children` sleeps run; resolves with their infos
 * once every one has said "ready" (its sleeps started).
 */
export async function startSleepingSessions(service, workspace, count, children) {
  const ready = new Map();
  const decoder = new TextDecoder();
  const unsubscribe = service.on('pty.data', (event) => {
    if (decoder.decode(event.data).includes('ready')) ready.get(event.id)?.();
  });
  try {
    const sleeps = `for i in $(seq ${children}); do sleep 1000 & done; echo ready; wait`;
    return await Promise.all(
      Array.from({ length: count }, () => {
        const info = service.create({ source: 'user', command: workspace.bash, args: ['--norc', '--noprofile', '-c', sleeps], cwd: workspace.home });
        return new Promise((resolve) => ready.set(info.id, () => resolve(info)));
      }),
    );
  } finally {
    unsubscribe();
  }
}
