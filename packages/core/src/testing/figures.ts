import { appendFileSync } from 'node:fs';

/**
 * The reliability suite's figures (frames fuzzed, bytes flooded, faults
 * injected, processes left behind) for the README. Written only when
 * PTYDECK_RELIABILITY_FIGURES names a file, one JSON object per line, so a
 * normal test run stays quiet.
 */
export function recordFigure(name: string, value: number, details: Record<string, unknown> = {}): void {
  const file = process.env.PTYDECK_RELIABILITY_FIGURES;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ name, value, ...details })}\n`);
}
