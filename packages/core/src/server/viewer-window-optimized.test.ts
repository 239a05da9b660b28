// A viewer's window keeps its optimized code when a new viewer's first frame is sent.
import { describe, expect, it } from 'vitest';
import { isOptimized, optimizeAfter } from '../testing/v8-natives.js';
import { ViewerWindow } from './viewer-window.js';

// Alone in its file: the first window below must be the first this module's code ever used.
describe('ViewerWindow under V8', () => {
  it("keeps sent's optimized code when another viewer's first frame is sent", () => {
    let end = 0;
    let now = 0.5;
    const first = new ViewerWindow(0);
    // A host's first viewer streams before V8 keeps type feedback for sent, as the first flood's did.
    first.sent((end += 4096), (now += 1.25));
    // Frames in flight, then an ack for all of them, as a flood's run.
    optimizeAfter(ViewerWindow.prototype.sent, () => {
      first.sent((end += 4096), (now += 1.25));
      first.sent((end += 4096), (now += 1.25));
      first.ack(end, (now += 1.25));
    });
    const second = new ViewerWindow(0);
    second.sent(4096, (now += 1.25));
    expect(isOptimized(ViewerWindow.prototype.sent)).toBe(true);
  });
});
