// The formats `ptydeck export` writes, as the contract's RecordingFormat lists them: spelled out here so that
// parsing a command line loads no schema library (args.test.ts holds the two equal).
export const EXPORT_FORMATS = ['asciicast-v3', 'asciicast-v2', 'text'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
