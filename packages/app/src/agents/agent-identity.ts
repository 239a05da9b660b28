/**
 * How the panel tells agents apart at a glance: a colour and two letters,
 * both from the agent's full name. The first letter alone made claude-code
 * and codex the same "C" in the same colour.
 */

/** A hue (0-359) from a hash of the whole name, so names sharing a first letter get unrelated colours. */
export function agentHue(name: string): number {
  // FNV-1a over the name, then Fibonacci hashing onto the circle (the fractional part
  // of hash x golden ratio), which spreads nearby hashes far apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return Math.floor((((hash >>> 0) * GOLDEN_RATIO_CONJUGATE) % 1) * 360);
}

const GOLDEN_RATIO_CONJUGATE = 0.618033988749895;

/**
 * Two letters: the initials of the first two words ("claude-code" -> "CC",
 * "Gemini CLI" -> "GC"), else the first two letters of a one-word name
 * ("codex" -> "Co").
 */
export function agentInitials(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
  if (words.length === 0) return '?';
  if (words.length === 1) {
    const [first = '', second = ''] = [...words[0]!];
    return first.toUpperCase() + second.toLowerCase();
  }
  return ([...words[0]!][0]! + [...words[1]!][0]!).toUpperCase();
}
