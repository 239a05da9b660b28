import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Two workers share the files. Started in vitest's order on a clean clone (no results cache: larger files
// first), a 12-second file that is small on disk started last and ran alone while the other worker idled,
// the tail of CI's vitest stage. Known-slow files (scripts/test-durations.json, from a quiet whole run;
// `node scripts/test-durations.mjs` writes it again) start first, longest first, so the last files to start
// are short ones. Vitest's own cache of durations, where a checkout has one, wins: it is newer.
const known: Readonly<Record<string, number>> = JSON.parse(
  readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'),
);

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const inBaseOrder = await super.sort(files);
    const place = new Map(inBaseOrder.map((spec, index) => [spec, index]));
    const seconds = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const cached = this.ctx.cache.getFileTestResults(key)?.duration;
      return cached !== undefined ? cached / 1000 : (known[key] ?? 0);
    };
    // Projects keep the base's order (they run one after the other); within one, longest first, and what
    // is not known keeps the base's order after what is.
    return inBaseOrder.sort((a, b) => {
      if (a.project.name !== b.project.name) return place.get(a)! - place.get(b)!;
      return seconds(b) - seconds(a) || place.get(a)! - place.get(b)!;
    });
  }
}
