// TextEncoder and TextDecoder exist in every runtime the contract runs in (Node,
// browsers, Electron), but live in neither lib.es2022 nor a runtime-free lib.
// Declaring the slice we use keeps the contract free of DOM and Node types.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}
