import { describe, expect, it } from 'vitest';
import { agentHue, agentInitials } from './agent-identity.js';

/** Distance between two hues around the colour circle. */
const hueDistance = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

describe('agent identity', () => {
  it('gives two letters that tell common agents apart', () => {
    expect(agentInitials('claude-code')).toBe('CC');
    expect(agentInitials('codex')).toBe('Co');
    expect(agentInitials('Gemini CLI')).toBe('GC');
    expect(agentInitials('cursor')).toBe('Cu');
    expect(agentInitials('x')).toBe('X');
    expect(agentInitials('--')).toBe('?');
  });

  it('colours by the whole name: stable, in range, and apart for agents sharing a first letter', () => {
    expect(agentHue('claude-code')).toBe(agentHue('claude-code'));
    for (const name of ['claude-code', 'codex', 'cursor', 'opencode', 'e2e-agent']) {
      expect(agentHue(name)).toBeGreaterThanOrEqual(0);
      expect(agentHue(name)).toBeLessThan(360);
    }
    // The agents most likely to share a panel are far apart on the colour circle.
    const common = ['claude-code', 'codex', 'cursor', 'opencode', 'gemini-cli'];
    for (const a of common) {
      for (const b of common) if (a < b) expect(hueDistance(agentHue(a), agentHue(b)), `${a} vs ${b}`).toBeGreaterThanOrEqual(40);
    }
  });
});
