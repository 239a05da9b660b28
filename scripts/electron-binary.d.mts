export type ElectronBinary = { found: true; path: string } | { found: false; reason: string };
export function electronPackageDir(from?: string): string | null;
export function findElectronBinary(options?: {
  env?: Record<string, string | undefined>;
  packageDir?: string | null;
}): ElectronBinary;
