/** The escape-sequence scanner every reader of terminal output shares: one pass, many handlers. */
export { SequenceScanner, type ScannedOutput, type SequenceHandlers } from './sequence-scanner.js';
/** Where UTF-8 characters begin and end in a byte stream, for everything that cuts terminal output. */
export { incompleteTail, isContinuationByte, MAX_CONTINUATION_BYTES } from './utf8.js';
