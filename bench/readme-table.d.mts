export const TABLE_START: string;
export const TABLE_END: string;
export interface BenchResults {
  mode: string;
  startedAt: string;
  machine: { nproc: number; cpu: string; node: string; commit?: string };
  rows: { pass: boolean | null }[];
  table: string;
}
export function benchSection(results: BenchResults): string;
export function withBenchSection(readme: string, section: string): string;
export function currentBenchSection(readme: string): string | undefined;
