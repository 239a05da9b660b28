import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { ScreenMirror } from '../screen/screen-mirror.js';
import { ScreenService } from '../screen/screen-service.js';
import { createTerminalTool, type TerminalTool } from './terminal-tool.js';
import { fileTempDir } from '../testing/isolated-env.js';

const owner = { id: 'screen-reader' };
let service: PtyService;
let screens: ScreenService;
let tool: TerminalTool;
let made = 0;

beforeAll(() => {
  service = createPtyService({ env: { ...process.env, HOME: fileTempDir('ptydeck-home-') } });
  screens = new ScreenService(service, {
    createScreen: (options) => {
      made++;
      return new ScreenMirror(options);
    },
  });
  tool = createTerminalTool(service, { screens });
});

afterAll(async () => {
  await tool.closeOwner(owner.id);
  tool.dispose();
  screens.dispose();
  await service.dispose();
});

describe('terminal_read mode "screen"', () => {
  it('reads the screen service it is given, so the panel and the agent share one terminal per session', async () => {
    const created = await tool.create(owner, { command: 'printf', args: ['\\x1b[?1049h\\x1b[Hon the screen'], rows: 5, cols: 30 });
    await tool.wait(owner, { id: created.id, until: 'exit', timeout_ms: 10_000 });
    const read = await tool.read(owner, { id: created.id, mode: 'screen' });
    expect(read.output).toBe('on the screen');
    expect(screens.parsedThrough(created.id)).toBe(service.read(created.id, { maxBytes: 1 }).end);
    expect((await screens.snapshot(created.id)).screen).toContain('on the screen');
    expect(made).toBe(1);
  });
});
