import { describe, expect, it } from 'vitest';
import { portChips, portTitle } from './port-chips.js';

const socket = (port: number, address: string, pid = 10, command = 'node server.js') => ({ port, address, pid, command });

describe('portChips', () => {
  it('makes one chip per port, sorted, with a loopback link for loopback and wildcard listeners', () => {
    const chips = portChips([socket(8000, '::'), socket(3000, '127.0.0.1'), socket(8000, '0.0.0.0'), socket(5432, '::1')]);
    expect(chips.map((chip) => [chip.port, chip.url])).toEqual([
      [3000, 'http://127.0.0.1:3000/'],
      [5432, 'http://[::1]:5432/'],
      [8000, 'http://127.0.0.1:8000/'],
    ]);
    expect(chips[2]!.sockets).toHaveLength(2);
  });

  it('prefers 127.0.0.1 over ::1 for a port on both, and gives no link to another address', () => {
    expect(portChips([socket(9000, '::1'), socket(9000, '127.0.0.1')])[0]!.url).toBe('http://127.0.0.1:9000/');
    expect(portChips([socket(9001, '192.168.1.5')])[0]!.url).toBeNull();
  });

  it('is empty where ports are unknown', () => {
    expect(portChips(undefined)).toEqual([]);
    expect(portChips(null)).toEqual([]);
  });

  it('names the holders and where a click goes', () => {
    const [chip] = portChips([socket(8000, '0.0.0.0', 42, 'python3 -m http.server')]);
    expect(portTitle(chip!)).toBe('Port 8000: python3 -m http.server (pid 42) on 0.0.0.0; open http://127.0.0.1:8000/');
    expect(portTitle(portChips([socket(1, '10.0.0.1', 7, '')])[0]!)).toBe('Port 1: unknown (pid 7) on 10.0.0.1; not on loopback: no link');
    // A holder's command line is its own (exec -a): a right-to-left override in it read the title backwards.
    expect(portTitle(portChips([socket(2, '127.0.0.1', 8, 'node\u202e evil')])[0]!)).toBe('Port 2: node\\u202e evil (pid 8) on 127.0.0.1; open http://127.0.0.1:2/');
  });
});
