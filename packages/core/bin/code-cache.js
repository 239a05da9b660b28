// A V8 code cache for the light client (bench figure 12), as v8-compile-cache
// and Node 22's module.enableCompileCache keep one: Node 20's require() takes
// no cached data, so the launcher compiles dist/bundle/light.cjs and the
// light-*.cjs chunks it requires with vm.Script itself. A fresh process spends
// more time in V8 compiling the client than in anything else it does; with the
// cache, the functions an earlier run compiled are deserialized instead.
//
// Where the cache lives is a security decision (docs/security.md): a cache is
// code this process runs, so it is kept only beside the file it was made
// from, in the package's own directory, and is no easier to plant than that
// file. Where that directory is not writable (a root-owned global install, a
// sandboxed shell), there is no cache; never a fallback to the state dir,
// ~/.cache or /tmp. A cache file that is a symlink, not a regular file, not
// ours or writable by others is ignored; one V8 rejects is rewritten; any
// error compiles without. PTYDECK_NO_CODE_CACHE=1 turns it off;
// PTYDECK_CODE_CACHE_DEBUG=1 says on stderr what each file got.
'use strict';
const fs = require('node:fs');
// The CommonJS loader's Module class, which node:module exports too: taken from this module, node:module (lib/module.js
// and the source-map modules it requires, about 0.35 ms) is not loaded into a light command.
const Module = module.constructor;
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

const off = process.env.PTYDECK_NO_CODE_CACHE === '1';
const debug = process.env.PTYDECK_CODE_CACHE_DEBUG === '1';
const MAGIC = 'ptydeck-v8-code-cache 2';
/** Dynamic import() inside the chunks (node: built-ins) goes to Node's own loader. */
const importModuleDynamically = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ?? ((specifier) => import(specifier));

/** The light command this process runs (`ls`, `url`, `status`, `attach`), as the launcher names it. @type {string | undefined} */
let current;
/** @type {Map<string, { exports: unknown }>} */
const loaded = new Map();
/** Scripts to write a cache for after the command: none was accepted, or it lacks this command. @type {{ script: vm.Script, cacheFile: string, header: string }[]} */
const misses = [];

/** The cache of `file` for this Node and CPU; V8 checks its own version and flags again. */
function cacheFileOf(file) {
  return `${file}.${process.version}-${process.arch}.v8cache`;
}

/** Reads a whole open file. */
function readAll(fd, size) {
  const data = Buffer.allocUnsafe(size);
  let length = 0;
  while (length < size) {
    const read = fs.readSync(fd, data, length, size - length, length);
    if (read === 0) break;
    length += read;
  }
  return data.subarray(0, length);
}

/**
 * The cached data for `key` (the source's size and mtime) and the commands whose runs made it, or
 * undefined if there is none we may trust.
 */
function readCache(cacheFile, key) {
  let fd;
  try {
    fd = fs.openSync(cacheFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0) return undefined;
    const data = readAll(fd, stat.size);
    const prefix = Buffer.from(`${MAGIC} ${key} `);
    const end = data.indexOf(10, prefix.length);
    if (end < 0 || end > prefix.length + 256 || !data.subarray(0, prefix.length).equals(prefix)) return undefined;
    return { data: data.subarray(end + 1), commands: data.subarray(prefix.length, end).toString('latin1').split(',').filter(Boolean) };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether a cache file is there to try (readCache checks it for real). */
function existsAndOurs(cacheFile) {
  try {
    return fs.lstatSync(cacheFile).uid === process.getuid();
  } catch {
    return false;
  }
}

function writable(directory) {
  try {
    fs.accessSync(directory, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Compiles and runs one CommonJS file of the light bundle, with its cache when there is one. */
function requireCached(file, command) {
  if (command !== undefined) current = command;
  const known = loaded.get(file);
  if (known) return known.exports;
  // Without a cache to read or a directory to write one in, Node's own require is as quick (a little
  // quicker). Decided for the entry: its chunks then load with it, each once.
  if (loaded.size === 0 && (off || !(existsAndOurs(cacheFileOf(file)) || writable(dirname(file))))) {
    if (debug) process.stderr.write(`ptydeck: code cache ${off ? 'off' : 'none'} ${basename(file)}\n`);
    return require(file);
  }
  const fd = fs.openSync(file, 'r');
  let source;
  let stat;
  try {
    stat = fs.fstatSync(fd);
    source = readAll(fd, stat.size).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
  const key = `${stat.size} ${stat.mtimeMs}`;
  const cacheFile = cacheFileOf(file);
  const cached = readCache(cacheFile, key);
  const cachedData = cached?.data;
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData, importModuleDynamically });
  const hit = cachedData !== undefined && !script.cachedDataRejected;
  // A cache the first command wrote lacks the functions only another uses (`url` after `ls`): the first
  // run of each command adds its own, once.
  const commands = hit ? cached.commands : [];
  if (!hit || (current !== undefined && !commands.includes(current))) {
    misses.push({ script, cacheFile, header: `${MAGIC} ${key} ${[...commands, current ?? ''].filter(Boolean).join(',')}\n` });
  }
  if (debug) process.stderr.write(`ptydeck: code cache ${hit ? 'hit' : cachedData ? 'rejected' : 'miss'} ${basename(file)}${hit ? ` (${commands.join(',')})` : ''}\n`);
  const module = new Module(file, require.main);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  loaded.set(file, module);
  const nodeRequire = Module.createRequire(file);
  // The chunks require each other by relative name: those go through the cache too.
  const localRequire = (id) => (id.startsWith('./') && id.endsWith('.cjs') ? requireCached(join(dirname(file), id)) : nodeRequire(id));
  script.runInThisContext()(module.exports, Object.assign(localRequire, { resolve: nodeRequire.resolve, cache: nodeRequire.cache }), module, file, dirname(file));
  module.loaded = true;
  return module.exports;
}

/**
 * Writes a cache for each file that had none: its functions compiled by this
 * run. The launcher calls it after a light command's output has drained, and
 * not when main.js took the command (the cache would hold little beyond the
 * argument parse, and later runs keep a cache they accept). Atomically (a
 * temporary file, then a rename) and 0600; nothing where the directory is not
 * writable, and no error ever reaches the command.
 */
function writeCaches() {
  for (const { script, cacheFile, header } of misses.splice(0)) {
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    let fd;
    try {
      fd = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    } catch {
      continue;
    }
    try {
      const data = Buffer.concat([Buffer.from(header, 'latin1'), script.createCachedData()]);
      fs.writeSync(fd, data);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(temporary, cacheFile);
      if (debug) process.stderr.write(`ptydeck: code cache written ${basename(cacheFile)}\n`);
    } catch {
      try {
        if (fd !== undefined) fs.closeSync(fd);
        fs.rmSync(temporary, { force: true });
      } catch {}
    }
  }
}

module.exports = { requireCached, writeCaches };
