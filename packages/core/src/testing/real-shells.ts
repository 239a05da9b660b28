import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SessionFacts } from '../facts/index.js';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from './isolated-env.js';
import type { PtyService } from '../pty/types.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool, type TerminalToolOptions } from '../terminal-tool/terminal-tool.js';

/**
 * A real PTY service and terminal tool for one test file: shells get a
 * temporary HOME and HISTFILE (never the developer's), and everything is
 * closed and removed after the file's tests.
 */
export interface RealShells {
  readonly service: PtyService;
  /** What the tool learns of its sessions, as the panels are shown it. */
  readonly facts: SessionFacts;
  readonly tool: TerminalTool;
  /** A temporary directory for the file's own fixtures. */
  readonly dir: string;
  /** A named pipe: a command blocked reading it goes on when open() writes a line. */
  gate(): { path: string; open: () => void };
}

export function useRealShells(name: string, owner: TerminalOwner, toolOptions: TerminalToolOptions = {}): RealShells {
  let service: PtyService | undefined;
  let tool: TerminalTool | undefined;
  let facts: SessionFacts | undefined;
  let dir: string | undefined;
  let gates = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `ptydeck-${name}-`));
    // A nohup'd job ignores the SIGHUP a closed terminal sends and is given the grace before SIGKILL: the service's
    // default 3 s went by in each close of one (session-endings.test.ts's three, owned-processes.test.ts's first case).
    // What ends, and the signals it gets, are the same.
    service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
    facts = new SessionFacts(service);
    tool = createTerminalTool(service, { facts, ...toolOptions });
  });
  afterAll(async () => {
    await tool?.closeOwner(owner.id);
    tool?.dispose();
    facts?.dispose();
    await service?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const required = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is made in beforeAll`);
    return value;
  };
  return {
    get service() {
      return required(service, 'the service');
    },
    get facts() {
      return required(facts, 'the facts');
    },
    get tool() {
      return required(tool, 'the tool');
    },
    get dir() {
      return required(dir, 'the directory');
    },
    gate() {
      const path = join(required(dir, 'the directory'), `gate-${gates++}`);
      execFileSync('mkfifo', [path]);
      return { path, open: () => writeFileSync(path, 'go\n') };
    },
  };
}
