// The core's screen worker as shipped, plus an answer to the bench's memory
// probe: a message { type: 'memory-probe' } gets { type: 'memory-probe',
// memory } back, the worker isolate's own heap. The shipped worker ignores the
// message (it names no screen and waits for no reply).
import { parentPort } from 'node:worker_threads';
import '../../packages/core/dist/screen/screen-worker.js';
import { workerMemory } from './memory-probe.mjs';

parentPort.on('message', (message) => {
  if (message?.type === 'memory-probe') parentPort.postMessage({ type: 'memory-probe', memory: workerMemory() });
});
