// What Vite replaces at build time. Only MODE is used: it decides whether the
// test hook is compiled in (see ui/test-hooks.ts).
interface ImportMetaEnv {
  readonly MODE: string;
}
interface ImportMeta {
  readonly env: ImportMetaEnv;
}
