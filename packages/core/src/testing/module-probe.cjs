// Preloaded into a ptydeck client (NODE_OPTIONS=--require) by scripts/cli-bundle.test.ts: at exit, writes
// to $PROBE_OUT which of Node's own modules the process loaded and whether anything built process.stdout
// or process.stderr (each a socket of its own on a pipe); and, at the first bytes written to stdout by
// descriptor (client/direct-output.ts), whether process.stdout was built and node:net loaded by then.
'use strict';
const fs = require('node:fs');
const { writeFileSync } = fs;

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
/** At the first bytes on descriptor 1: what `ptydeck attach` had built before its first frame (bench figure 12). */
let firstWrite;
const { writeSync } = fs;
fs.writeSync = function (fd, buffer, ...rest) {
  const offset = typeof rest[0] === 'number' ? rest[0] : 0;
  if (fd === 1 && firstWrite === undefined && buffer.length > offset) {
    firstWrite = { stdoutBuilt: built.stdout, net: process.moduleLoadList.includes('NativeModule net') };
  }
  return writeSync.call(this, fd, buffer, ...rest);
};
process.on('exit', () => {
  const builtins = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice('NativeModule '.length));
  writeFileSync(out, JSON.stringify({ builtins, stdoutBuilt: built.stdout, stderrBuilt: built.stderr, firstWrite }));
});
