import { describe, expect, it } from 'vitest';
import { miniTerminalOptions } from './mini-terminal.js';

describe("a chat card's terminal", () => {
  it("opens its output's OSC 8 links through the panel's safe path, never xterm.js's own confirm and window.open", () => {
    const opened: string[] = [];
    const options = miniTerminalOptions({ cols: 80, onLink: (uri) => opened.push(uri) });
    expect(options.linkHandler).toBeTruthy();
    expect(options.linkHandler!.allowNonHttpProtocols).toBe(false);
    options.linkHandler!.activate({} as MouseEvent, 'https://user:pw@example.com/', { start: { x: 1, y: 1 }, end: { x: 2, y: 1 } });
    expect(opened).toEqual(['https://user:pw@example.com/']);
  });
});
