import { agentHue } from '../agents/agent-identity.js';

/** An agent's colour as the CSS variable its badge, tab accent and avatar are drawn with. */
export function agentStyle(name: string | null): Record<string, string> {
  return { '--agent-hue': String(agentHue(name ?? 'agent')) };
}
