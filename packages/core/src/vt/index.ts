/** The escape-sequence scanner every reader of terminal output shares: one pass, many handlers. */
export { SequenceScanner, type ScannedOutput, type SequenceHandlers } from './sequence-scanner.js';
