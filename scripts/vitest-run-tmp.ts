// Vitest global setup: the run's temporary directory (run-tmp.mjs), made before any worker is forked
// (workers and everything they start inherit TMPDIR and HOME from this process), removed at teardown
// after saying what tests left in it. vitest runs a root config's global setup once for each project
// that extends it too: the first makes the directory, and the others keep it.
import { closeRunTmpReporting, openRunTmp } from './run-tmp.mjs';

export default function setup(): (() => void) | undefined {
  if (process.env.PTYDECK_RUN_TMP) return undefined;
  const { root, env } = openRunTmp();
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  return () => {
    closeRunTmpReporting(root, 'vitest');
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}
