// `ptydeck sandbox check`: whether each sandbox profile can start on this machine, and why not.
import { sandboxAvailability } from '../sandbox/index.js';
import type { CliIo } from './cli-io.js';
import { styleFor } from './style.js';
import { EXIT_FAILURE, EXIT_OK } from '../common/exit-codes.js';

const PROFILES = ['workspace', 'workspace-offline'] as const;

export async function runSandboxCheck(command: { json: boolean }, io: CliIo): Promise<number> {
  const results = PROFILES.map((profile) => ({ profile, ...sandboxAvailability(profile) }));
  const allOk = results.every((result) => result.ok);
  if (command.json) {
    const byProfile = Object.fromEntries(results.map(({ profile, ...rest }) => [profile, rest.ok ? { ok: true, bwrap: rest.bwrap } : rest]));
    io.stdout.write(`${JSON.stringify({ off: { ok: true }, ...byProfile })}\n`);
    return allOk ? EXIT_OK : EXIT_FAILURE;
  }
  const style = styleFor(io.stdout);
  const lines = ['off                  works: no sandbox'];
  for (const result of results) {
    const name = result.profile.padEnd(20);
    lines.push(result.ok ? `${name} works (${result.bwrap})` : `${name} ${style.red('does not work')}: ${result.reason}\n${' '.repeat(21)}fix: ${result.fix}`);
  }
  if (!allOk) lines.push('', "Agents' shells fall back to no sandbox only where the default asked for one; an explicit --sandbox or config.json profile fails the shell instead.");
  io.stdout.write(`${lines.join('\n')}\n`);
  return allOk ? EXIT_OK : EXIT_FAILURE;
}
