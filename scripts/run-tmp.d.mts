export const RUN_PREFIX: string;
export function openRunTmp(): { root: string; home: string; env: Record<string, string> };
export function leftovers(root: string): Map<string, number>;
export function closeRunTmp(root: string): number[];
export function reapRun(root: string): number[];
export function closeRunTmpReporting(root: string, who: string): void;
