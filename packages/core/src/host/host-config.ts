// ptydeck's config.json: the settings that protect the developer, which no environment can loosen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonAs } from '@ptydeck/contract';
import { z } from 'zod';
import { sessionStoreSetting } from '../persist/session-store.js';
import { SandboxConfig } from '../sandbox/index.js';

/**
 * A host may be started by anyone's client, an agent's `ptydeck mcp` after
 * it killed the previous host included, so a setting that protects the
 * developer cannot live in the environment of whoever starts it: an agent
 * would start the next host without it. It lives in `config.json` in
 * ptydeck's config directory, which every host reads; the environment may
 * only make it stricter.
 */
export const HostConfigFile = z
  .object({
    persist: z.boolean().default(true).describe("Keep each session's last output on disk so that a killed host's sessions come back as lost."),
    // Read for each new agent shell by sandbox/sandbox-config.ts; checked here too so a host starts knowing it is valid.
    sandbox: SandboxConfig.optional(),
    shellIntegration: z
      .boolean()
      .default(true)
      .describe("Give the developer's own bash tabs ptydeck's marks (after their startup files), so the commands they run there are recorded."),
  })
  .strict();
export type HostConfigFile = z.infer<typeof HostConfigFile>;

export const HOST_CONFIG_FILE = 'config.json';

export interface HostSettings {
  persist: boolean;
  /** Why persistence is off, for the log; undefined when it is on. */
  persistOffBecause?: string;
  /** What was wrong with the file, if anything: then its strictest reading is used. */
  problem?: string;
}

/** The host's protective settings: config.json in `configDir`, made stricter (never looser) by `env`. */
export function loadHostSettings(configDir: string, env: Record<string, string | undefined> = process.env): HostSettings {
  const path = join(configDir, HOST_CONFIG_FILE);
  const file = readConfig(path);
  const envOff = !sessionStoreSetting(env);
  const fileOff = 'problem' in file || !file.value.persist;
  const because = fileOff ? ('problem' in file ? `${path} cannot be read as a ptydeck config` : `"persist": false in ${path}`) : envOff ? 'PTYDECK_PERSIST' : undefined;
  return {
    persist: because === undefined,
    ...(because ? { persistOffBecause: because } : {}),
    ...('problem' in file ? { problem: file.problem } : {}),
  };
}

/**
 * Whether the developer's new bash tabs get ptydeck's marks: config.json's
 * `shellIntegration`, read for each new tab so an edit needs no restart. A
 * file that cannot be read leaves their shell as it is.
 */
export function developerShellIntegration(configDir: string): boolean {
  const file = readConfig(join(configDir, HOST_CONFIG_FILE));
  return 'value' in file && file.value.shellIntegration;
}

/** A missing file is the defaults; a broken one is its problem, read as the strictest settings. */
function readConfig(path: string): { value: HostConfigFile } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { value: HostConfigFile.parse({}) };
    return { problem: `${path}: cannot read the file (${(error as Error).message})` };
  }
  const checked = parseJsonAs(HostConfigFile, text);
  return checked.ok ? { value: checked.value } : { problem: checked.json ? `${path}: ${checked.error}` : `${path}: not valid JSON (${checked.error})` };
}
