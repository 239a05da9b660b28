// Reads agents.json, the developer's list of ACP agents, and says what is wrong with it rather than failing.
import { readFile } from 'node:fs/promises';
import { resolveConfigDir } from '../common/config-dir.js';
import { join } from 'node:path';

export { resolveConfigDir };
import { parseJsonAs } from '@ptydeck/contract';
import { z } from 'zod';

/** One ACP agent the developer can start: a program that speaks ACP over its stdin and stdout. */
export const AgentConfig = z
  .object({
    name: z.string().trim().min(1).describe('Shown in the panel when choosing an agent; unique in the file.'),
    command: z.string().min(1).describe('The program to run, a path or a name looked up on PATH.'),
    args: z.array(z.string()).default([]).describe('Arguments passed to the program.'),
    env: z.record(z.string(), z.string()).default({}).describe('Variables added to the environment ptydeck runs with.'),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;

export const AgentsFile = z
  .object({
    agents: z.array(AgentConfig).default([]),
  })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.agents.forEach((agent, index) => {
      if (seen.has(agent.name)) {
        ctx.addIssue({ code: 'custom', path: ['agents', index, 'name'], message: `the name '${agent.name}' is used twice` });
      }
      seen.add(agent.name);
    });
  });
export type AgentsFile = z.infer<typeof AgentsFile>;

export const AGENTS_FILE = 'agents.json';

/**
 * What loading gave: the agents, or why there are none. A broken file is a
 * value, not an exception, so the panel can show it next to an empty list.
 */
export type AgentsLoad = { ok: true; path: string; agents: AgentConfig[] } | { ok: false; path: string; error: string };


/** Reads `agents.json` from the config directory; a missing file is an empty list. Never throws. */
export async function loadAgentsConfig(configDir: string = resolveConfigDir()): Promise<AgentsLoad> {
  const path = join(configDir, AGENTS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, path, agents: [] };
    return { ok: false, path, error: `${path}: cannot read the file (${errorMessage(error)})` };
  }
  const checked = parseJsonAs(AgentsFile, text);
  if (!checked.ok) return { ok: false, path, error: checked.json ? `${path}: ${checked.error}` : `${path}: not valid JSON (${checked.error})` };
  return { ok: true, path, agents: checked.value.agents };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
