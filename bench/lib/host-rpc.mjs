// The request loop both bench hosts (core-host, raw-host) run over their IPC
// channel: { req, op, ...args } in, { req, ok, value | error } out.
export function send(message) {
  if (process.connected) process.send(message);
}

export function serveOps(ops) {
  process.on('message', async (message) => {
    const { req, op, ...args } = message;
    try {
      send({ req, ok: true, value: await ops[op](args) });
    } catch (error) {
      send({ req, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  });
}
