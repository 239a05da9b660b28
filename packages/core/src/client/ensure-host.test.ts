import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { writeDiscovery } from '../common/discovery.js';
import { PROOF_PATH, proofOf } from '../common/server-proof.js';
import { fileTempDir } from '../testing/isolated-env.js';
import { ensureHost } from './ensure-host.js';

describe.runIf(process.platform === 'linux')('ensureHost, joining only (ls, status, attach)', () => {
  it('asks a running host that did not answer its first probe in time again, rather than saying none runs', async () => {
    const token = 'ab'.repeat(32);
    let probes = 0;
    // The host as a loaded machine has it: too busy to answer the first probe at all (the client gives up on it after
    // 1.5 s), answering the next.
    // Raw TCP, half-open allowed: the client ends its side once it has asked, and a silent host keeps the connection.
    const sockets = new Set<Socket>();
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      sockets.add(socket);
      let head = '';
      socket.on('data', (chunk) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        const url = new URL(head.split(' ')[1] ?? '/', 'http://127.0.0.1');
        if (url.pathname !== PROOF_PATH || ++probes === 1) return;
        const body = JSON.stringify({ proof: proofOf(token, url.searchParams.get('challenge') ?? '') });
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const stateDir = fileTempDir('ptydeck-ensure-host-');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      writeDiscovery({ url, token, pid: process.pid, instance: 'busy-host', protocol: HOST_PROTOCOL_VERSION }, stateDir);
      const { record, started } = await ensureHost({ stateDir, start: false, log: () => undefined });
      expect(record).toMatchObject({ url, pid: process.pid, instance: 'busy-host' });
      expect(started).toBe(false);
      expect(probes).toBe(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
