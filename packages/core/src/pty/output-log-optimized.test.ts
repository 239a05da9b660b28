// The log's hot methods keep their optimized code when a new session's log takes its first output.
import { describe, expect, it } from 'vitest';
import { isOptimized, optimizeAfter } from '../testing/v8-natives.js';
import { OutputLog } from './output-log.js';

// Alone in its file: the first log below must be the first this module's code ever filled.
describe('OutputLog under V8', () => {
  it("keeps adopt's optimized code when another log takes its first batch", () => {
    const batch = () => new Uint8Array(new ArrayBuffer(64 * 1024), 0, 63 * 1024);
    const first = new OutputLog();
    // A host's first log fills before V8 keeps type feedback for adopt, as the first flood's did.
    first.adopt(batch());
    optimizeAfter(OutputLog.prototype.adopt, () => first.adopt(batch()));
    const second = new OutputLog();
    second.adopt(batch());
    expect(isOptimized(OutputLog.prototype.adopt)).toBe(true);
  });
});
