/** A UTF-8 sequence is at most 4 bytes, so at most 3 continuation bytes follow a lead byte. */
export const MAX_CONTINUATION_BYTES = 3;

export function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * How many bytes at the end of `bytes` begin a character that is not
 * complete yet: a lead byte and fewer continuation bytes than it announces.
 * 0 when the bytes end on a character boundary, or in bytes that are not
 * UTF-8 at all (a decoder discards those whatever follows).
 */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(bytes.length, MAX_CONTINUATION_BYTES + 1); back++) {
    const byte = bytes[bytes.length - back]!;
    if (isContinuationByte(byte)) continue;
    const length = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 && byte < 0xf0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 1;
    return back < length ? back : 0;
  }
  return 0;
}
