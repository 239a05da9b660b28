import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionStoreDir } from '../persist/session-store.js';
import { metaPath, outputPath } from '../persist/store-format.js';
import { plantRecord } from '../testing/lost-records.js';
import { buildCore, hostSandbox, runCli, reapAfterEach, stdioAgent } from '../testing/host-sandbox.js';

/**
 * Issue 31.4 with the real CLI: entries an agent's shell can plant in the
 * session store (a FIFO or a link to /dev/zero for a record's output, a
 * directory named like a record, a huge output file) once hung or stopped
 * the next host at start, holding the host lock; now the host an agent's
 * `ptydeck mcp` starts answers, `ptydeck ls` shows the good record, and
 * host.log says one line per bad one.
 */
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

describe('a session store with planted entries', () => {
  it('never stops the next host: it starts, answers, restores the good record, and logs one line per bad one', async () => {
    const box = hostSandbox();
    track(box);
    const dir = sessionStoreDir(box.stateDir);
    const good = plantRecord(dir, { title: 'good-record', status: 'exited', exitCode: 0, exitedAt: 1_700_000_001_000 }, 'kept\r\n');
    const fifo = plantRecord(dir, {}, 'x');
    rmSync(outputPath(dir, fifo.id));
    execFileSync('mkfifo', [outputPath(dir, fifo.id)]);
    const zero = plantRecord(dir, {}, 'x');
    rmSync(outputPath(dir, zero.id));
    symlinkSync('/dev/zero', outputPath(dir, zero.id));
    mkdirSync(join(dir, 'a-directory.json'));
    const huge = plantRecord(dir, {}, 'x');
    truncateSync(outputPath(dir, huge.id), 256 * 1024 * 1024);

    // An agent's `ptydeck mcp` starts the host, detached, logging to host.log.
    const agent = await stdioAgent(box, 'planted-records', { clients });
    const answered = (await agent.client.callTool({ name: 'terminal_list', arguments: {} })) as { isError?: boolean; structuredContent?: { terminals: unknown[] } };
    expect(answered.isError, agent.stderr()).toBeFalsy();
    expect(answered.structuredContent?.terminals).toEqual([]);
    const ls = await runCli(box, ['ls', '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    const listed = JSON.parse(ls.stdout) as Array<{ id: string; title: string }>;
    expect(listed.map((entry) => entry.id)).toEqual([good.id]);

    const log = readFileSync(join(box.stateDir, 'host.log'), 'utf8').split('\n');
    for (const id of [fifo.id, zero.id, 'a-directory', huge.id]) {
      expect(log.filter((line) => line.includes(`the session store set aside the record of session ${id} `)), log.join('\n')).toHaveLength(1);
    }
    // The records are set aside, the good one stays.
    expect(() => readFileSync(metaPath(dir, good.id))).not.toThrow();
    const stop = await runCli(box, ['stop']);
    expect(stop.code, stop.stderr).toBe(0);
  });
});
