/**
 * What a project's `.envrc` sends direnv to: the files its stdlib loads as the developer enters the directory
 * (`dotenv`'s `.env`, `source_env`'s file, `use flake`'s and `use nix`'s expressions), and the directories `PATH_add`
 * puts first on PATH (`PATH_add bin`): a command a shell put there (`bin/git`) ran as the developer's prompt's git once
 * direnv loaded. Not those in a `node_modules` (`PATH_add node_modules/.bin`): read-only, every install inside would
 * fail, and npm puts there whatever bins the packages installed name, `git` included (docs/security.md).
 * A read-only `.envrc` stops nothing when it loads a file the workspace holds:
 * a sandboxed shell wrote `BASH_ENV=./evil.sh` into the `.env` an `.envrc` of `dotenv` loads, and the developer's next
 * bash script in the project ran evil.sh.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readSmall } from './git-named.js';
import { exists } from './real-paths.js';

export interface DirenvNames {
  /** Files direnv loads or evaluates, absolute. */
  files: string[];
  /** Directories `PATH_add` (or `path_add PATH`) puts first on PATH, absolute; those in a node_modules and those built from a variable left out. */
  pathDirs: string[];
  /** What the fence cannot follow (a path built from a variable other than $PWD), said as why; undefined when none. */
  unknown?: string;
}

/** The stdlib commands that load a file, with the file each loads when given none. */
const LOADS: Record<string, string[]> = {
  dotenv: ['.env'],
  dotenv_if_exists: ['.env'],
  source_env: [],
  source_env_if_exists: [],
  use_flake: ['flake.nix', 'flake.lock'],
  use_nix: ['shell.nix', 'default.nix'],
};

/** What `envrc` (a project's `.envrc`, read-only in the sandbox) names for direnv; nothing where it cannot be read. */
export function namedByEnvrc(envrc: string, home: string): DirenvNames {
  const found: DirenvNames = { files: [], pathDirs: [] };
  const text = readSmall(envrc);
  if (text === undefined) return found;
  const base = dirname(envrc);
  const path = (word: string): string | undefined => {
    const expanded = word.replace(/^\$\{?PWD\}?(?=\/|$)/, base);
    if (expanded.includes('$') || expanded.includes('`')) {
      found.unknown ??= `${envrc} names ${word}, which depends on a variable`;
      return undefined;
    }
    if (expanded === '~' || expanded.startsWith('~/')) return join(home, expanded.slice(1));
    return isAbsolute(expanded) ? expanded : resolve(base, expanded);
  };
  for (const command of commands(text)) {
    let [name, ...args] = command;
    if (name === 'use' && (args[0] === 'flake' || args[0] === 'nix')) [name, ...args] = [`use_${args[0]}`, ...args.slice(1)];
    const options = args.filter((arg) => !arg.startsWith('-'));
    const added = name === 'PATH_add' ? args : name === 'path_add' && args[0] === 'PATH' ? args.slice(1) : [];
    for (const word of added) {
      // A directory named through a variable other than $PWD (`PATH_add "$GOPATH/bin"`) is not followed: most lie
      // outside the project, and fencing the workspace whole for each would leave agents none to write.
      const expanded = word.replace(/^\$\{?PWD\}?(?=\/|$)/, base);
      if (expanded.includes('$') || expanded.includes('`')) continue;
      const dir = expanded === '~' || expanded.startsWith('~/') ? join(home, expanded.slice(1)) : resolve(base, expanded);
      if (!dir.split('/').includes('node_modules')) found.pathDirs.push(dir);
    }
    if (name !== undefined && name in LOADS) {
      // `use flake` names a flake reference (`.#dev`, `path:./sub`) rather than a file: its directory's flake.nix.
      const given = name === 'use_flake' ? options.slice(0, 1).map((ref) => ref.replace(/^path:/, '').replace(/#.*$/, '') || '.') : options;
      const defaults = LOADS[name]!.map((file) => join(base, file));
      // `use nix` takes shell.nix, else default.nix: where shell.nix exists default.nix is not read.
      const files = given.length > 0 ? given.flatMap((word) => path(word) ?? []) : name === 'use_nix' && exists(defaults[0]!) ? defaults.slice(0, 1) : defaults;
      if (name === 'use_flake' && given.length > 0) found.files.push(...files.flatMap((dir) => [join(dir, 'flake.nix'), join(dir, 'flake.lock')]));
      else found.files.push(...files);
    }
  }
  return found;
}

/** The simple commands of a shell script, each as its words: comments dropped, split at `;`, `&&`, `||`, `|` and lines, quotes taken off. */
function commands(text: string): string[][] {
  const found: string[][] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const part of code.split(/;|&&|\|\||\|/)) {
      const words = [...part.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
      if (words.length > 0) found.push(words);
    }
  }
  return found;
}
