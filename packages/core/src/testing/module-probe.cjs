// Preloaded into a ptydeck client (NODE_OPTIONS=--require) by scripts/cli-bundle.test.ts: at exit, writes
// to $PROBE_OUT which of Node's own modules the process loaded and whether anything built process.stdout.
'use strict';
const { writeFileSync } = require('node:fs');

const out = process.env.PROBE_OUT;
const stdout = Object.getOwnPropertyDescriptor(process, 'stdout');
let stdoutBuilt = false;
Object.defineProperty(process, 'stdout', {
  configurable: true,
  enumerable: stdout.enumerable,
  get() {
    stdoutBuilt = true;
    return stdout.get.call(process);
  },
});
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice('NativeModule '.length));
  writeFileSync(out, JSON.stringify({ builtins, stdoutBuilt }));
});
