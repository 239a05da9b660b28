// Run by figure 15 as the ssh box's user, on the box: a panel of that user's own host (its token asked as any
// developer's process asks, kernel-judged), with a raw `cat` session to echo keys. On each stdin line `KEY_INDEX`
// it types one key and answers with that echo's round trip in ms, measured here: the remote host's own share of
// a remote keystroke, without panel-channel, ssh or this machine's host.
import { createInterface } from 'node:readline';
import { ensureHost } from '../../packages/core/dist/client/ensure-host.js';
import { panelToken } from '../../packages/core/dist/client/panel-access.js';
import { PanelClient } from './panel-client.mjs';

const { record } = await ensureHost({ log: (line) => process.stderr.write(`${line}\n`), start: true });
const client = await PanelClient.connect(record.url, await panelToken(record.url));
const { message } = await (() => {
  const created = client.nextJson((m) => m.type === 'created' && m.requestId === 'probe', 30_000, 'a shell on the box');
  client.send({ type: 'create', requestId: 'probe', cols: 120, rows: 40 });
  return created;
})();
const id = message.info.id;
client.attach(id, null);
await client.until(() => client.stream(id).next !== null, 30_000, 'its screen');
await client.typeUntil(id, 'stty raw -echo; printf "READY%s" 42; exec cat\r', 'READY42');
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${await client.echoLatency(id, Number(line))}\n`);
}
await client.close();
