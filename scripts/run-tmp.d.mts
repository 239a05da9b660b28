export const RUN_PREFIX: string;
export function openRunTmp(): { root: string; home: string; env: Record<string, string> };
export function leftovers(root: string): Map<string, number>;
export function closeRunTmp(root: string): Array<{ pid: number; command: string }>;
export function reapRun(root: string): Array<{ pid: number; command: string }>;
export function closeRunTmpReporting(root: string, who: string): void;
