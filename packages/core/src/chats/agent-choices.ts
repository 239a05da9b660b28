// The agents the developer can start: agents.json's and known ACP agents found on PATH.
import type { ChatAgentChoice } from '@ptydeck/contract';
import { resolveExecutable } from '../pty/command.js';
import { loadAgentsConfig, type AgentConfig } from './agents-config.js';

/**
 * ACP agents ptydeck offers when their program is on PATH and agents.json
 * names no agent of that name: the adapters Zed documents, run as it runs them.
 * Claude's adapter was renamed: `claude-agent-acp` (@zed-industries/claude-agent-acp)
 * is the current one, `claude-code-acp` the older package.
 */
export const KNOWN_AGENTS: readonly AgentConfig[] = [
  { name: 'claude-agent-acp', command: 'claude-agent-acp', args: [], env: {} },
  { name: 'claude-code-acp', command: 'claude-code-acp', args: [], env: {} },
  { name: 'codex-acp', command: 'codex-acp', args: [], env: {} },
  { name: 'gemini', command: 'gemini', args: ['--experimental-acp'], env: {} },
  { name: 'opencode', command: 'opencode', args: ['acp'], env: {} },
];

/** What the developer can start, and why agents.json could not be used. */
export interface AgentChoices {
  agents: (AgentConfig & { origin: ChatAgentChoice['origin'] })[];
  configPath: string;
  configError: string | null;
}

/** agents.json's agents, then the known agents found on `searchPath`. Never throws: a broken file is `configError`. */
export async function loadAgentChoices(configDir: string, searchPath: string | undefined): Promise<AgentChoices> {
  const loaded = await loadAgentsConfig(configDir);
  const configured = loaded.ok ? loaded.agents : [];
  const names = new Set(configured.map((agent) => agent.name));
  const found = KNOWN_AGENTS.filter((agent) => !names.has(agent.name) && onPath(agent.command, searchPath));
  return {
    agents: [...configured.map((agent) => ({ ...agent, origin: 'config' as const })), ...found.map((agent) => ({ ...agent, origin: 'path' as const }))],
    configPath: loaded.path,
    configError: loaded.ok ? null : loaded.error,
  };
}

function onPath(command: string, searchPath: string | undefined): boolean {
  try {
    resolveExecutable(command, searchPath, '/');
    return true;
  } catch {
    return false;
  }
}
