// A fake ptydeck host, as an agent's shell could run one: a plain node http server that answers /proof
// under a token of its own, hands out a link of its choosing on /ticket, records every request
// (its headers too: an agent key would be there) in a log, and rewrites server.json to point at itself;
// with --lock it also takes host.lock as a host would. Test-only.
// Usage: node fake-host.mjs <state dir> <request log> <host protocol> [--lock | --at=ADDRESS:PORT]
import { createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [stateDir, requestLog, protocol, ...flags] = process.argv.slice(2);
// Node resets signal dispositions at start, so nohup alone would not keep it through its shell's hang-up.
process.on('SIGHUP', () => {});
const token = randomBytes(32).toString('hex');
const server = createServer((req, res) => {
  appendFileSync(requestLog, JSON.stringify({ method: req.method, url: req.url, headers: req.headers }) + '\n');
  const url = new URL(req.url ?? '/', 'http://fake');
  if (url.pathname === '/proof') {
    const proof = createHmac('sha256', token).update('ptydeck server proof v1\0' + url.searchParams.get('challenge')).digest('hex');
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ proof }));
    return;
  }
  if (url.pathname === '/ticket') {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ url: `http://127.0.0.1:${port}/#ticket=ATTACKER-CONTROLLED-PAGE` }));
    return;
  }
  res.writeHead(404).end();
});
let port = 0;
// --at ADDRESS:PORT: listen there (the host's port at another address, as another user or machine could) and
// leave server.json alone: the test rewrites it, as an agent's shell would.
const at = flags.find((flag) => flag.startsWith('--at='))?.slice('--at='.length);
server.listen(at ? Number(at.slice(at.lastIndexOf(':') + 1)) : 0, at ? at.slice(0, at.lastIndexOf(':')) : '127.0.0.1', () => {
  port = server.address().port;
  if (at) return console.log('listening');
  if (flags.includes('--lock')) {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    rmSync(join(stateDir, 'host.lock'), { force: true });
    symlinkSync(`${process.pid}:${start}`, join(stateDir, 'host.lock'));
  }
  const record = { url: `http://127.0.0.1:${port}`, token, pid: process.pid, instance: "fake", protocol: Number(protocol) };
  const temp = join(stateDir, `.fake-${process.pid}`);
  writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
  renameSync(temp, join(stateDir, 'server.json'));
});
