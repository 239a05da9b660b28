import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCore } from '../testing/host-sandbox.js';
import { HOST_ADDED_ENV, HOST_ALLOCATOR_ENV, HOST_NODE_FLAGS, shedHostAllocatorEnv, withHostAllocator } from './host-node-flags.js';

describe("the host's allocator settings", () => {
  it('are added where the starter does not set them, and shed by the host', () => {
    const env = withHostAllocator({ HOME: '/home/dev' });
    expect(env).toMatchObject({ ...HOST_ALLOCATOR_ENV, HOME: '/home/dev' });
    shedHostAllocatorEnv(env);
    expect(env).toEqual({ HOME: '/home/dev' });
  });

  it("keep the developer's own value, which the host does not shed, and shed nothing but their names", () => {
    const own = Object.fromEntries(Object.keys(HOST_ALLOCATOR_ENV).map((name) => [name, '4096']));
    const env = withHostAllocator({ ...own, [HOST_ADDED_ENV]: 'stale' });
    expect(env).toEqual(own);
    const planted = { ...own, HOME: '/home/dev', [HOST_ADDED_ENV]: `HOME,${Object.keys(HOST_ALLOCATOR_ENV).join(',')}` };
    shedHostAllocatorEnv(planted);
    expect(planted).toEqual({ HOME: '/home/dev' });
  });
});

describe("the host's worker threads", () => {
  beforeAll(buildCore);

  it("size their young generation themselves in a process started with the host's flags, and the main thread keeps the flags' size", () => {
    const flags = fileURLToPath(new URL('../../dist/common/host-node-flags.js', import.meta.url));
    // Objects that survive a scavenge or two, as a parse's do, so V8 grows the new space to its most.
    const churn = "let keep = []; for (let i = 0; i < 1e6; i++) { keep.push({ i, a: [i] }); if (keep.length > 20000) keep = []; }";
    const newSpace = "v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size";
    const script = `
      import v8 from 'node:v8';
      import { Worker } from 'node:worker_threads';
      import { letWorkersSizeYoungGeneration } from ${JSON.stringify(flags)};
      letWorkersSizeYoungGeneration();
      // The child's --input-type=module makes a worker's eval code a module too.
      const worker = new Worker(${JSON.stringify(`import v8 from 'node:v8'; import { parentPort } from 'node:worker_threads'; ${churn}; parentPort.postMessage(${newSpace});`)}, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 2 } });
      const workerNewSpace = await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
      ${churn}
      console.log(JSON.stringify({ worker: workerNewSpace, main: ${newSpace} }));
    `;
    const run = spawnSync(process.execPath, [...HOST_NODE_FLAGS, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const MiB = 1024 * 1024;
    // The worker's 2 MiB (two semi-spaces of 1), not the 2 x 4 MiB of the command line's flag; the main isolate's 2 x 4.
    expect(JSON.parse(run.stdout)).toEqual({ worker: 2 * MiB, main: 8 * MiB });
  });
});
