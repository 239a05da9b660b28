import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startupFileCovers, withoutCredentials } from './startup-files.js';

const token = `ghp_${'a'.repeat(36)}`;

describe('withoutCredentials', () => {
  it('leaves out each line that sets a credential, by name or by value, and nothing else', () => {
    const text = [`export GH_TOKEN=${token}`, 'export EDITOR=vim', `  OPENAI="sk-${'b'.repeat(30)}" # mine`, "declare -x PGPASSWORD='pw'", 'alias ll="ls -l"', ''].join('\n');
    const out = withoutCredentials(text)!.split('\n');
    expect(out).toHaveLength(6);
    expect(out[1]).toBe('export EDITOR=vim');
    expect(out[4]).toBe('alias ll="ls -l"');
    for (const index of [0, 2, 3]) expect(out[index]).toMatch(/^: # ptydeck left out a credential/);
  });

  it('gives the same text where there is none, keeps what keepEnv names, and gives up on a value past its line', () => {
    const plain = 'export PATH="$HOME/bin:$PATH"\nexport HISTCONTROL=ignoreboth\n';
    expect(withoutCredentials(plain)).toBe(plain);
    expect(withoutCredentials(`export GH_TOKEN=${token}\n`, ['GH_TOKEN'])).toBe(`export GH_TOKEN=${token}\n`);
    expect(withoutCredentials('export PRIVATE_KEY="-----BEGIN\nRSA PRIVATE KEY-----"\n')).toBeNull();
  });
});

describe('startupFileCovers', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('covers only the files that set a credential, with a copy beside the empty file, or the empty file where a value runs past its line', () => {
    const home = mkdtempSync(join(tmpdir(), 'startup-home-'));
    const own = mkdtempSync(join(tmpdir(), 'startup-own-'));
    made.push(home, own);
    const empty = join(own, 'empty');
    writeFileSync(empty, '');
    writeFileSync(join(home, '.bashrc'), `export GH_TOKEN=${token}\nexport EDITOR=vim\n`);
    writeFileSync(join(home, '.profile'), 'export EDITOR=vim\n');
    writeFileSync(join(home, '.zshrc'), "export API_KEY='open\nquote'\n");
    mkdirSync(join(home, '.bash_profile'));
    const covers = startupFileCovers(home, empty);
    expect(covers.map((each) => each.path).sort()).toEqual([join(home, '.bashrc'), join(home, '.zshrc')]);
    const bashrc = covers.find((each) => each.path.endsWith('.bashrc'))!;
    expect(bashrc.cover).toBe(join(own, 'startup.bashrc'));
    expect(readFileSync(bashrc.cover, 'utf8')).not.toContain(token);
    expect(readFileSync(bashrc.cover, 'utf8')).toContain('export EDITOR=vim');
    expect(covers.find((each) => each.path.endsWith('.zshrc'))!.cover).toBe(empty);
  });
});
