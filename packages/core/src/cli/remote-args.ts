// Parses `ptydeck remote add|ls|rm`.
import { parseArgs } from 'node:util';
import { REMOTE_USAGE, UsageError } from './usage.js';

import type { RemoteCommand } from '../client/remote.js';
import { destinationProblem, nameProblem } from '../remote/remote-names.js';

export type { RemoteCommand };

const NAME = 'ptydeck remote';

export function parseRemote(args: string[]): RemoteCommand {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '-h' || verb === '--help') return { kind: 'help', topic: 'remote' };
  let parsed;
  try {
    // The destination is a positional that may not start with '-' anyway (remotes-config.ts); `--` ends the options.
    parsed = parseArgs({ args: rest, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message, `${NAME} ${verb}`, REMOTE_USAGE);
  }
  if (parsed.values.help) return { kind: 'help', topic: 'remote' };
  const positionals = parsed.positionals;
  const expect = (count: number, what: string) => {
    if (positionals.length !== count) throw new UsageError(`expected ${what}, received ${positionals.length === 0 ? 'nothing' : positionals.join(' ')}`, `${NAME} ${verb}`, REMOTE_USAGE);
  };
  switch (verb) {
    case 'add':
      expect(2, 'a name and an ssh destination (user@host or a Host alias)');
      // Bad input, as a missing one is (exit 2, the usage): remotes-config.ts refuses them again where it writes.
      for (const [value, problem, what] of [
        [positionals[0]!, nameProblem(positionals[0]!), 'a remote name'],
        [positionals[1]!, destinationProblem(positionals[1]!), 'an ssh destination'],
      ] as const) {
        if (problem) throw new UsageError(`cannot use '${value}' as ${what}: ${problem}`, `${NAME} ${verb}`, REMOTE_USAGE);
      }
      return { kind: 'remote-add', name: positionals[0]!, destination: positionals[1]! };
    case 'ls':
      expect(0, 'no argument');
      return { kind: 'remote-ls', json: Boolean(parsed.values.json) };
    case 'rm':
      expect(1, "a remote's name");
      return { kind: 'remote-rm', name: positionals[0]! };
    default:
      throw new UsageError(`unknown subcommand '${verb}'; expected add, ls or rm`, NAME, REMOTE_USAGE);
  }
}
