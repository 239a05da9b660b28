// Agents' terminal_wait patterns: matched off the loop, and refused from an agent whose patterns keep costing too much.
import { TerminalToolError } from './errors.js';
import { PatternMatcher, PatternTooCostlyError } from './pattern-matcher.js';

/** Longest one pattern match may run over new output before the wait gives up on the pattern. */
export const PATTERN_BUDGET_MS = 500;
/** Patterns of one agent that may run out of their budget within STRIKE_WINDOW_MS before its patterns are refused. */
export const PATTERN_STRIKES = 3;
export const STRIKE_WINDOW_MS = 10 * 60_000;

class PatternsRefused extends Error {}

/**
 * Matches each agent's patterns (PatternMatcher: off the loop unless linear)
 * and counts, per agent, the matches that ran out of their budget. An agent
 * with PATTERN_STRIKES of them within STRIKE_WINDOW_MS gets its patterns
 * refused until the oldest of those ages out, and its matches still queued
 * or running are stopped: the matching thread is shared, and eight parallel
 * waits on a hostile pattern would otherwise hold it for every agent in turn.
 */
export class AgentPatterns {
  private readonly strikes = new Map<string, number[]>();
  /** Per agent, its matches in progress, so a refusal stops them. */
  private readonly running = new Map<string, Set<AbortController>>();

  constructor(private readonly matcher: PatternMatcher = new PatternMatcher()) {}

  /** Throws, with what to do instead, while the agent's patterns are refused. */
  admit(ownerId: string): void {
    const until = this.refusedUntil(ownerId);
    if (until === null) return;
    const minutes = Math.max(1, Math.ceil((until - Date.now()) / 60_000));
    throw new TerminalToolError(
      'invalid_input',
      `ptydeck matches no pattern of yours for the next ${minutes} min: ${PATTERN_STRIKES} of your terminal_wait patterns each took more than ${PATTERN_BUDGET_MS} ms to match terminal output. Wait with until "exit", "idle" or "port" and read the output with terminal_read instead.`,
    );
  }

  /** The text `regex` first matches in `text`, or null; a match out of its budget ends with an error for the model. */
  async match(ownerId: string, regex: RegExp, text: string): Promise<string | null> {
    this.admit(ownerId);
    const controller = new AbortController();
    const mine = this.running.get(ownerId) ?? new Set();
    this.running.set(ownerId, mine.add(controller));
    try {
      return await this.matcher.match(regex, text, PATTERN_BUDGET_MS, controller.signal);
    } catch (error) {
      if (error instanceof PatternsRefused) this.admit(ownerId);
      if (!(error instanceof PatternTooCostlyError)) throw error;
      const strikes = this.strike(ownerId);
      throw new TerminalToolError(
        'invalid_input',
        `The pattern ${JSON.stringify(regex.source)} took more than ${PATTERN_BUDGET_MS} ms to match this terminal's output, so the wait was stopped: nested quantifiers such as (a+)+ backtrack exponentially. Use a simpler pattern, e.g. a literal piece of the line you expect (${strikes} of ${PATTERN_STRIKES} such patterns within ${STRIKE_WINDOW_MS / 60_000} min; then your patterns are refused for a while).`,
      );
    } finally {
      mine.delete(controller);
      if (mine.size === 0 && this.running.get(ownerId) === mine) this.running.delete(ownerId);
    }
  }

  dispose(): void {
    this.matcher.dispose();
  }

  /** Counts a match out of its budget; at PATTERN_STRIKES, stops the agent's other matches. Returns the count. */
  private strike(ownerId: string): number {
    const now = Date.now();
    const recent = (this.strikes.get(ownerId) ?? []).filter((at) => now - at < STRIKE_WINDOW_MS);
    recent.push(now);
    this.strikes.set(ownerId, recent);
    if (recent.length >= PATTERN_STRIKES) {
      for (const controller of this.running.get(ownerId) ?? []) controller.abort(new PatternsRefused());
    }
    return recent.length;
  }

  /** Until when the agent's patterns are refused (null: they are not). */
  private refusedUntil(ownerId: string): number | null {
    const now = Date.now();
    const recent = (this.strikes.get(ownerId) ?? []).filter((at) => now - at < STRIKE_WINDOW_MS);
    if (recent.length === 0) this.strikes.delete(ownerId);
    else this.strikes.set(ownerId, recent);
    return recent.length >= PATTERN_STRIKES ? recent[recent.length - PATTERN_STRIKES]! + STRIKE_WINDOW_MS : null;
  }
}
