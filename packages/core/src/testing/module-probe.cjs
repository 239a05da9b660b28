// Preloaded into a ptydeck client (NODE_OPTIONS=--require) by scripts/cli-bundle.test.ts: at exit, writes
// to $PROBE_OUT which of Node's own modules the process loaded and whether anything built process.stdout
// or process.stderr (each a socket of its own on a pipe).
'use strict';
const { writeFileSync } = require('node:fs');

const out = process.env.PROBE_OUT;
const built = { stdout: false, stderr: false };
for (const name of ['stdout', 'stderr']) {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() {
      built[name] = true;
      return descriptor.get.call(process);
    },
  });
}
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice('NativeModule '.length));
  writeFileSync(out, JSON.stringify({ builtins, stdoutBuilt: built.stdout, stderrBuilt: built.stderr }));
});
