// console exists in every runtime the contract runs in (Node, browsers,
// Electron) but is in neither lib.es2022 nor a runtime-free lib. Declaring the
// one method used keeps the contract free of DOM and Node types.
declare const console: {
  error(...data: unknown[]): void;
};
