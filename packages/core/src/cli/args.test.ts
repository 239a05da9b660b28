import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SandboxProfile } from '@ptydeck/contract';
import { parseCommand, parseOptions, SANDBOX_PROFILE_NAMES } from './args.js';
import { formatUsageError, UsageError } from './usage.js';

function usageErrorOf(argv: string[]): UsageError {
  try {
    parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommand', () => {
  it('parses help and version at every level', () => {
    expect(parseCommand([])).toEqual({ kind: 'open' });
    expect(parseCommand(['help', 'stop'])).toEqual({ kind: 'help', topic: 'stop' });
    expect(parseCommand(['--help'])).toEqual({ kind: 'help', topic: 'root' });
    expect(parseCommand(['help', 'mcp'])).toEqual({ kind: 'help', topic: 'mcp' });
    expect(parseCommand(['serve', '--help'])).toEqual({ kind: 'help', topic: 'serve' });
    expect(parseCommand(['mcp', '-h'])).toEqual({ kind: 'help', topic: 'mcp' });
    expect(parseCommand(['--version'])).toEqual({ kind: 'version' });
    expect(parseCommand(['-v'])).toEqual({ kind: 'version' });
  });

  it('gives the named command\'s help after --help or -h, as after help', () => {
    expect(parseCommand(['--help', 'stop'])).toEqual({ kind: 'help', topic: 'stop' });
    expect(parseCommand(['-h', 'remote'])).toEqual({ kind: 'help', topic: 'remote' });
    expect(usageErrorOf(['-h', 'nope']).message).toContain("no help for 'nope'");
  });

  it('refuses arguments after --version rather than drop them', () => {
    expect(usageErrorOf(['-v', 'extra']).message).toContain("unexpected argument 'extra' after -v");
    expect(usageErrorOf(['--version', 'ls']).message).toContain("unexpected argument 'ls' after --version");
  });

  it('parses serve and mcp options', () => {
    expect(parseCommand(['serve'])).toEqual({ kind: 'serve', port: 0, host: '127.0.0.1' });
    expect(parseCommand(['serve', '--port', '8123', '--host', '::1'])).toEqual({ kind: 'serve', port: 8123, host: '::1' });
    expect(parseCommand(['serve', '--port=0'])).toEqual({ kind: 'serve', port: 0, host: '127.0.0.1' });
    expect(parseCommand(['host', '--idle-exit', '30'])).toEqual({ kind: 'host', port: 0, host: '127.0.0.1', idleExitSeconds: 30 });
    expect(parseCommand(['serve', '--idle-exit=0'])).toEqual({ kind: 'serve', port: 0, host: '127.0.0.1', idleExitSeconds: 0 });
    expect(parseCommand(['stop'])).toEqual({ kind: 'stop', force: false });
    expect(parseCommand(['status', '--json'])).toEqual({ kind: 'status', json: true });
    expect(parseCommand(['status', '-h'])).toEqual({ kind: 'help', topic: 'status' });
    expect(parseCommand(['stop', '--force'])).toEqual({ kind: 'stop', force: true });
    expect(parseCommand(['mcp'])).toEqual({ kind: 'mcp', embedded: false });
    expect(parseCommand(['mcp', '--embedded'])).toEqual({ kind: 'mcp', embedded: true });
  });

  it('reports bad input with what was expected and received', () => {
    expect(usageErrorOf(['serve', '--port', 'abc']).message).toBe("--port expects an integer from 0 to 65535, received 'abc'");
    expect(usageErrorOf(['serve', '--port', '70000']).message).toContain("received '70000'");
    expect(usageErrorOf(['serve', '--port']).message).toBe('--port expects a value, received nothing');
    expect(usageErrorOf(['serve', '--bogus']).message).toBe("unknown option '--bogus'; expected one of: --port, --host, --idle-exit, --help");
    expect(usageErrorOf(['host', '--idle-exit', 'soon']).message).toBe("--idle-exit expects a number of seconds (0: never), received 'soon'");
    expect(usageErrorOf(['serve', 'extra']).message).toContain("unexpected argument 'extra'");
    expect(usageErrorOf(['mcp', '--embedded=yes']).message).toBe('--embedded takes no value, received one');
    expect(usageErrorOf(['launch']).message).toBe("unknown command 'launch'; expected one of: serve, host, mcp, url, stop, status, ls, attach, export, sandbox, remote");
    expect(usageErrorOf(['--frobnicate']).command).toBe('ptydeck');
  });

  it('formats a usage error with the usage line and a pointer to --help', () => {
    const text = formatUsageError(usageErrorOf(['serve', '--port', 'x']));
    expect(text).toBe(
      "ptydeck serve: --port expects an integer from 0 to 65535, received 'x'\nUsage: ptydeck serve [--port N] [--host H] [--idle-exit S]\nRun 'ptydeck serve --help' for more.\n",
    );
  });
});

describe('parseCommand: ls and attach', () => {
  it('parses ls [--json] and attach [--write] <id>, with help for each', () => {
    expect(parseCommand(['ls'])).toEqual({ kind: 'ls', json: false });
    expect(parseCommand(['ls', '--json'])).toEqual({ kind: 'ls', json: true });
    expect(parseCommand(['attach', '3f2a'])).toEqual({ kind: 'attach', target: '3f2a', write: false });
    expect(parseCommand(['attach', '--write', '3f2a'])).toEqual({ kind: 'attach', target: '3f2a', write: true });
    expect(parseCommand(['attach', '3f2a', '--write'])).toEqual({ kind: 'attach', target: '3f2a', write: true });
    expect(parseCommand(['help', 'attach'])).toEqual({ kind: 'help', topic: 'attach' });
    expect(parseCommand(['ls', '-h'])).toEqual({ kind: 'help', topic: 'ls' });
  });

  it('attach wants exactly one session', () => {
    expect(usageErrorOf(['attach']).message).toContain('expected a session id or a unique prefix of one');
    expect(usageErrorOf(['attach', 'a', 'b']).message).toBe('expected one session, received 2: a b');
    expect(usageErrorOf(['attach', '--force', 'a']).message).toBe("unknown option '--force'; expected one of: --write, --remote, --help");
    expect(usageErrorOf(['ls', 'x']).message).toContain("unexpected argument 'x'");
  });
  it('export takes one session, a format and a file', () => {
    expect(parseCommand(['export', 'ab12'])).toEqual({ kind: 'export', target: 'ab12', format: 'asciicast-v3', output: null });
    expect(parseCommand(['export', 'ab12', '--format', 'text', '-o', 'out.txt'])).toEqual({ kind: 'export', target: 'ab12', format: 'text', output: 'out.txt' });
    expect(parseCommand(['export', '-h'])).toEqual({ kind: 'help', topic: 'export' });
    expect(usageErrorOf(['export', 'ab12', '--format', 'gif']).message).toBe("--format expects one of asciicast-v3, asciicast-v2, text, received 'gif'");
    expect(usageErrorOf(['export']).message).toContain('expected a session id');
  });
});

describe('parseOptions', () => {
  /** What a call answered: its values and positionals, or its error's code and message. */
  const outcome = (call: () => { values: object; positionals: string[] }) => {
    try {
      const { values, positionals } = call();
      return { values: { ...values }, prototype: Object.getPrototypeOf(values) as unknown, positionals };
    } catch (error) {
      return { code: (error as { code?: string }).code, message: (error as Error).message };
    }
  };

  it('answers as node:util parseArgs for every command line of up to three words', () => {
    const options = { write: { type: 'boolean' }, remote: { type: 'string' }, help: { type: 'boolean', short: 'h' }, many: { type: 'boolean', multiple: true }, on: { type: 'boolean', default: false } } as const;
    const words = ['a1', '', '-', '--', '-h', '--help', '--write', '--write=x', '--remote', '--remote=box', '--many', '--on', '--force', '--constructor', '--__proto__', '---write', '-wx'];
    const lines: string[][] = [[]];
    for (let length = 1; length <= 3; length++) for (const line of lines.filter((l) => l.length === length - 1)) for (const word of words) lines.push([...line, word]);
    for (const args of lines) {
      for (const allowPositionals of [true, false]) {
        const ours = outcome(() => parseOptions(args, options, allowPositionals));
        expect(ours, `${JSON.stringify(args)} ${allowPositionals}`).toEqual(outcome(() => parseArgs({ args, options, strict: true, allowPositionals })));
      }
    }
  });
});

describe('parseCommand: sandbox', () => {
  it('parses mcp --sandbox PROFILE and sandbox check, and refuses an unknown profile', () => {
    expect(parseCommand(['mcp', '--sandbox', 'workspace-offline'])).toEqual({ kind: 'mcp', embedded: false, sandbox: 'workspace-offline' });
    expect(parseCommand(['sandbox', 'check', '--json'])).toEqual({ kind: 'sandbox-check', json: true });
    expect(usageErrorOf(['mcp', '--sandbox', 'loose']).message).toBe("--sandbox expects one of off, workspace, workspace-offline, received 'loose'");
    expect(usageErrorOf(['sandbox']).message).toMatch(/expected `ptydeck sandbox check`/);
  });

  it('names the profiles as the contract does', () => {
    expect([...SANDBOX_PROFILE_NAMES]).toEqual(SandboxProfile.options);
  });
});

describe('parseCommand: remotes', () => {
  it('parses remote add|ls|rm and --remote on mcp, ls and attach', () => {
    expect(parseCommand(['remote', 'add', 'box', 'me@box'])).toEqual({ kind: 'remote-add', name: 'box', destination: 'me@box' });
    expect(parseCommand(['remote', 'ls', '--json'])).toEqual({ kind: 'remote-ls', json: true });
    expect(parseCommand(['remote', 'rm', 'box'])).toEqual({ kind: 'remote-rm', name: 'box' });
    expect(parseCommand(['remote'])).toEqual({ kind: 'help', topic: 'remote' });
    expect(parseCommand(['mcp', '--remote', 'box'])).toEqual({ kind: 'mcp', embedded: false, remote: 'box' });
    expect(parseCommand(['ls', '--remote', 'box'])).toEqual({ kind: 'ls', json: false, remote: 'box' });
    expect(parseCommand(['attach', '--remote', 'box', '3f2a'])).toEqual({ kind: 'attach', target: '3f2a', write: false, remote: 'box' });
  });

  it('refuses what it cannot mean', () => {
    expect(usageErrorOf(['remote', 'add', 'box', '-oProxyCommand=x']).message).toContain("Unknown option '-o'");
    expect(usageErrorOf(['remote', 'add', 'box']).message).toContain('expected a name and an ssh destination');
    // A name or destination remotes.json cannot hold is bad input (exit 2 with the usage), not a failure (exit 1).
    expect(usageErrorOf(['remote', 'add', 'x y', 'me@box']).message).toBe("cannot use 'x y' as a remote name: expected 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit");
    expect(usageErrorOf(['remote', 'add', 'box', '--', '-oProxyCommand=x']).message).toBe("cannot use '-oProxyCommand=x' as an ssh destination: it starts with '-', which ssh would read as an option");
    expect(usageErrorOf(['remote', 'move']).message).toBe("unknown subcommand 'move'; expected add, ls or rm");
    expect(usageErrorOf(['mcp', '--remote', 'box', '--embedded']).message).toContain('--embedded and --sandbox do not apply');
  });
});
