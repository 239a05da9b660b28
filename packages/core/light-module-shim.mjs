// node:module as the light CommonJS bundle sees it (rolldown.config.mjs aliases it here, for that bundle only).
// Its one user there, common/lazy-builtins.ts, asks createRequire for a require that loads Node's built-ins; a
// CommonJS file has one already: the chunk's own. Loading node:module for it (lib/module.js and the source-map
// modules it requires, about 0.35 ms) was part of every light command's start (bench figure 12).
export function createRequire() {
  return require;
}
