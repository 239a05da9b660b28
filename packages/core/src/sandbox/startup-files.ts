// HOME's shell startup files as a sandboxed shell sees them: a copy without the lines that set a credential.
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readUntrustedFileSync } from '../common/untrusted-read.js';
import { realOr } from './real-paths.js';
import { isSecretVariable } from './secret-env.js';
import { settled, stampOf } from './settled.js';

/**
 * The files a shell reads as it starts, relative to HOME. A token exported in one (`export GH_TOKEN=ghp_...` in
 * ~/.bashrc) was in every sandboxed shell twice over: the shell read the file (`cat ~/.bashrc`), and its bash, which
 * sources ~/.profile and so ~/.bashrc, set the variable again, though the environment it inherits is scrubbed of it.
 */
export const STARTUP_FILES = ['.bashrc', '.bash_profile', '.bash_login', '.profile', '.bash_aliases', '.zshenv', '.zprofile', '.zshrc', '.zlogin'] as const;

/** The names of the copies, made beside the empty file (empty-file.ts), whose directory's removal lists them. */
export const STARTUP_COPIES = STARTUP_FILES.map((name) => `startup${name}`);

/** A startup file larger than this is laid over with the empty file rather than read: none is. */
const MAX_STARTUP_FILE_BYTES = 1024 * 1024;

/**
 * An assignment on a line of its own, as bash (and zsh) read one: `NAME=value`, after `export`, `declare -x`,
 * `typeset -x` or `readonly`. Its value is judged as secret-env.ts judges a variable's.
 */
const ASSIGNMENT = /^\s*(?:(?:export|readonly|declare\s+-[a-zA-Z]+|typeset\s+-[a-zA-Z]+)\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

/** What stands in a copy where a credential's line was: a command that does nothing, so the file's syntax holds. */
const LEFT_OUT = ': # ptydeck left out a credential here (its sandbox hides it)';

/** What was made of each startup file, by its real path, with the stamp it had as it was read: the same stamp, the same copy. */
const made = new Map<string, { stamp: string; keep: string; copy: string | null }>();

/**
 * The startup files of `home` that set a credential, each with what a sandbox binds over it (real paths): a copy with
 * those lines left out, or the empty file where one cannot be left out alone (a value that goes on past its line, a file
 * that cannot be read as one). `keep` is config.json's `keepEnv`: the variables the developer passes into sandboxes.
 * Files that set none are not in the list, and are seen as they are. `empty` is the empty file (empty-file.ts), beside
 * which the copies are made.
 */
export function startupFileCovers(home: string, empty: string, keep: readonly string[] = [], now = Date.now()): Array<{ path: string; cover: string }> {
  const covers: Array<{ path: string; cover: string }> = [];
  STARTUP_FILES.forEach((name, index) => {
    const path = realOr(join(home, name));
    let stat;
    try {
      stat = statSync(path, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    // A directory or nothing: the shell reads nothing there either.
    if (stat === undefined || stat.isDirectory()) return;
    const stamp = stampOf(stat);
    const keepKey = keep.join('\0');
    const known = made.get(path);
    let copy: string | null;
    if (known !== undefined && known.stamp === stamp && known.keep === keepKey && (known.copy === null || statSync(known.copy, { throwIfNoEntry: false }) !== undefined)) {
      copy = known.copy;
    } else {
      copy = coverOf(path, join(dirname(empty), STARTUP_COPIES[index]!), empty, keep);
      // Stamped before the read: a change in between leaves a newer stamp, and the next shell reads again.
      if (settled(stat, now)) made.set(path, { stamp, keep: keepKey, copy });
      else made.delete(path);
    }
    if (copy !== null) covers.push({ path, cover: copy });
  });
  return covers;
}

/** What to bind over `path`: null where it sets no credential, else `copyPath` written without those lines, or the empty file. */
function coverOf(path: string, copyPath: string, empty: string, keep: readonly string[]): string | null {
  let text: string;
  try {
    const data = readUntrustedFileSync(path, MAX_STARTUP_FILE_BYTES);
    if (data === undefined) return null;
    text = data.toString('utf8');
  } catch {
    // A FIFO, a device, a file too large: nothing of it is shown rather than all of it.
    return empty;
  }
  const redacted = withoutCredentials(text, keep);
  if (redacted === text) return null;
  if (redacted === null) return empty;
  // A new file renamed over the name: a sandbox running already keeps the copy it was given (a bind holds the inode).
  const temporary = `${copyPath}.${process.pid}.tmp`;
  writeFileSync(temporary, redacted, { mode: 0o444 });
  renameSync(temporary, copyPath);
  return copyPath;
}

/**
 * `text` with each line that assigns a credential (`export GH_TOKEN=...`, `OPENAI=sk-...`) replaced by a command that
 * does nothing, the rest as it was; the same text where there is none; null where such a line's value goes on past its
 * line (an open quote), which cannot be left out alone.
 */
export function withoutCredentials(text: string, keep: readonly string[] = []): string | null {
  const lines = text.split('\n');
  let changed = false;
  for (let index = 0; index < lines.length; index++) {
    const found = ASSIGNMENT.exec(lines[index]!);
    if (found === null) continue;
    const [, name, value] = found as unknown as [string, string, string];
    if (keep.includes(name) || !isSecretVariable(name, unquoted(value))) continue;
    if (opensQuote(value)) return null;
    lines[index] = LEFT_OUT;
    changed = true;
  }
  return changed ? lines.join('\n') : text;
}

/** A value as the variable would hold it, near enough to judge it: the quotes around it and a trailing comment taken off. */
function unquoted(value: string): string {
  const trimmed = value.trim();
  const quoted = /^(["'])(.*)\1/.exec(trimmed);
  if (quoted !== null) return quoted[2]!;
  return trimmed.replace(/\s+#.*$/, '');
}

/** Whether `value` ends inside a quote (bash's rules near enough: `\` escapes outside single quotes). */
function opensQuote(value: string): boolean {
  let quote: string | null = null;
  for (let index = 0; index < value.length; index++) {
    const char = value[index]!;
    if (quote === "'") {
      if (char === "'") quote = null;
    } else if (char === '\\') index++;
    else if (quote === '"') {
      if (char === '"') quote = null;
    } else if (char === '"' || char === "'") quote = char;
  }
  return quote !== null || value.endsWith('\\');
}
