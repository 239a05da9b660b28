// A TCP port on the loopback that nothing listens on right now, by asking the kernel for one.
import { createServer } from 'node:net';

/** The kernel's pick of a free loopback port. Another process may take it before the caller does. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
