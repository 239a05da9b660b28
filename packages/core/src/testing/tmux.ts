import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A private tmux server for tests that drive a program the way a person in a
 * terminal does (keys in, the screen read back). tmux has no events for a
 * screen's content, so waits poll capture-pane until a deadline; each poll
 * runs tmux without blocking this process, which is often the host the pane's
 * program talks to (attach.test.ts): a synchronous poll every 50 ms held the
 * host's loop for each tmux client's start, on a loaded machine much of the
 * wait. Test-only.
 */
export class TmuxServer {
  /** A socket of its own (-L): never the developer's tmux. */
  readonly socket = `ptydeck-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  private count = 0;

  /** `env` is the environment of the tmux server, so of every pane's program. */
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  tmux(...args: string[]): string {
    const result = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
    return result.stdout;
  }

  /** tmux(), without blocking this process's event loop while tmux runs. */
  tmuxAsync(...args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: this.env }, (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(' ')} failed (${error.code}): ${stderr}`));
        else resolve(stdout);
      });
    });
  }

  /**
   * A new 100x30 pane running `command` (a shell command line). Its pane is
   * kept once the program exits, so its exit status can be read.
   */
  pane(command: string, size = { cols: 100, rows: 30 }): TmuxPane {
    const name = `p${++this.count}`;
    const id = this.tmux('new-session', '-d', '-s', name, '-x', String(size.cols), '-y', String(size.rows), '-P', '-F', '#{pane_id}', command).trim();
    this.tmux('set-option', '-t', name, 'remain-on-exit', 'on');
    return new TmuxPane(this, id);
  }

  /** Ends the server and every pane's program, and removes its socket (tmux leaves it behind). */
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { env: this.env, stdio: 'ignore' });
    rmSync(join(this.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
  }
}

export class TmuxPane {
  constructor(
    private readonly server: TmuxServer,
    readonly id: string,
  ) {}

  /** The visible screen, as text. */
  screen(): string {
    return this.server.tmux('capture-pane', '-p', '-t', this.id);
  }

  /** Text typed literally, then Enter. */
  type(line: string): void {
    this.server.tmux('send-keys', '-t', this.id, '-l', line);
    this.server.tmux('send-keys', '-t', this.id, 'Enter');
  }

  /** Keys in tmux's names (C-c, Enter) or literal bytes with `literal`. */
  keys(keys: string[], literal = false): void {
    this.server.tmux('send-keys', '-t', this.id, ...(literal ? ['-l'] : []), ...keys);
  }

  /** Appends every byte the pane's program writes to its terminal, from now on, to `path` (tmux's pipe-pane). */
  recordOutput(path: string): void {
    this.server.tmux('pipe-pane', '-O', '-t', this.id, `cat >> '${path}'`);
  }

  /** A tmux format for this pane, e.g. `#{pane_dead_status}`. */
  format(format: string): string {
    return this.server.tmux('display-message', '-p', '-t', this.id, format).trim();
  }

  /** Resolves with the screen once `pattern` is on it. */
  async waitFor(pattern: RegExp | string, timeoutMs = 20_000): Promise<string> {
    return this.waitUntil((screen) => (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)), `${String(pattern)} on the screen`, timeoutMs);
  }

  /** Resolves with the screen once `ready(screen)` holds, polling (tmux has no events for this). */
  async waitUntil(ready: (screen: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.server.tmuxAsync('capture-pane', '-p', '-t', this.id);
      if (ready(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The exit status of the pane's program once it ended. */
  async exitStatus(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [dead, status, signal] = (await this.server.tmuxAsync('display-message', '-p', '-t', this.id, '#{pane_dead}/#{pane_dead_status}/#{pane_dead_signal}')).trim().split('/');
      if (dead === '1' && status !== '') return Number(status);
      if (dead === '1' && signal !== '') throw new Error(`pane ${this.id}'s program was killed by signal ${signal}; screen:\n${this.screen()}`);
      // tmux marks a pane dead when its terminal closes, before it reaps the program. It sometimes
      // misses that SIGCHLD (tmux 3.3a, the program left a zombie): another child's exit reaps it.
      if (dead === '1') await this.server.tmuxAsync('run-shell', 'true');
      if (Date.now() > deadline) throw new Error(`pane ${this.id} did not end; screen:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
