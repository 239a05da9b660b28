/**
 * One command's output as a model reads it: plain text (terminal-tool's
 * renderer), and when it is large its head and tail around an explicit
 * omission line. Only the two ends are rendered, so a command that printed
 * megabytes costs what the answer holds.
 */
import type { CommandRecord } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { boundText, renderPlainText } from '../terminal-tool/index.js';

export interface CommandOutput {
  text: string;
  /** Raw output bytes of the command (escape sequences included). */
  bytes: number;
  /** Raw bytes left out between the head and the tail (0: all of it). */
  omittedBytes: number;
}

export function readCommandOutput(service: PtyService, record: CommandRecord, maxBytes: number): CommandOutput {
  const end = record.output.end ?? service.scanPosition(record.session).safeEnd;
  const start = record.output.start;
  const total = Math.max(0, end - start);
  const read = (from: number, bytes: number) => service.read(record.session, { cursor: from, maxBytes: Math.max(1, bytes) }).data;
  // Raw bytes render to at most as many characters: twice the budget of raw bytes is enough for both ends.
  if (total <= 2 * maxBytes) {
    const text = total === 0 ? '' : renderPlainText(read(start, total));
    const bounded = boundText(text, maxBytes);
    return { text: bounded.text, bytes: total, omittedBytes: bounded.omittedBytes };
  }
  const half = Math.floor(maxBytes / 2);
  const head = renderPlainText(read(start, half));
  const tail = renderPlainText(read(end - half, half));
  const omitted = total - 2 * half;
  return { text: `${head}${head.endsWith('\n') ? '' : '\n'}... ${omitted} bytes omitted ...\n${tail}`, bytes: total, omittedBytes: omitted };
}
