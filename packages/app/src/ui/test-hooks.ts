// Includes the end-to-end test hook in the e2e build only, so no production bundle carries it.
import type { JSX } from 'solid-js';
import { DebugHook } from './DebugHook.jsx';

/**
 * The test hook in the end-to-end build (`vite build --mode e2e`), nothing in
 * any other. Vite replaces `import.meta.env.MODE` with a string literal, so in
 * the production bundle the condition is constant-false and DebugHook, which
 * would hand every terminal's text to any script in the page, is dropped from
 * it entirely (scripts/production-bundle.test.ts checks).
 */
export const TestHooks: () => JSX.Element = import.meta.env.MODE === 'e2e' ? DebugHook : () => null;
