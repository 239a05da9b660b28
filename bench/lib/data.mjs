// Data files the bench floods PTYs with. Every file is built from a repeated
// block whose line count is known, so the bytes a PTY delivers are known
// exactly: the terminal's output processing (onlcr) turns each \n into \r\n.
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

const ESC = '\x1b';

/** Plain text lines (79 characters by default), like a log or a source listing. */
function plainBlock(width = 79, count = 512) {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');
  const lines = [];
  for (let i = 0; i < count; i++) {
    let line = `${String(i).padStart(5, '0')} `;
    for (let w = i; line.length < width; w++) line += `${words[w % words.length]} `;
    lines.push(line.slice(0, width));
  }
  return `${lines.join('\n')}\n`;
}

/** Every word in its own 256-color or truecolor SGR, bold and underline mixed in: `ls --color`, compilers, test runners at their worst. */
function sgrBlock() {
  const words = 'error warning note passed failed skipped src/index.ts:42:7 expected received'.split(' ');
  const lines = [];
  for (let i = 0; i < 512; i++) {
    let line = '';
    for (let w = 0; w < 10; w++) {
      const n = (i * 7 + w * 13) % 256;
      const word = words[(i + w) % words.length];
      if (w % 3 === 0) line += `${ESC}[1;38;5;${n}m${word}${ESC}[0m `;
      else if (w % 3 === 1) line += `${ESC}[38;2;${n};${255 - n};${(n * 3) % 256}m${word}${ESC}[39m `;
      else line += `${ESC}[4;48;5;${n}m${word}${ESC}[24;49m `;
    }
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

/** 10 000 numbered, colored lines: a session's scrollback for the reconnect figure. */
function scrollbackText(lines) {
  let out = '';
  for (let i = 1; i <= lines; i++) {
    out += `${ESC}[1;32m${String(i).padStart(5, '0')}${ESC}[0m ${ESC}[36mbuild step ${i % 97}${ESC}[0m compiled module_${i % 1013}.ts in ${(i * 37) % 1000} ms\n`;
  }
  return out;
}

function writeRepeated(file, block, targetBytes) {
  const buffer = Buffer.from(block, 'utf8');
  const newlines = countNewlines(buffer);
  const blocks = Math.max(1, Math.round(targetBytes / buffer.length));
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < blocks; i++) writeSync(fd, buffer);
  } finally {
    closeSync(fd);
  }
  const bytes = blocks * buffer.length;
  return { path: file, bytes, lines: blocks * newlines, ptyBytes: bytes + blocks * newlines };
}

function countNewlines(buffer) {
  let n = 0;
  for (const byte of buffer) if (byte === 0x0a) n++;
  return n;
}

export function makeDataFiles(dir, sizes) {
  const scroll = Buffer.from(scrollbackText(sizes.scrollbackLines), 'utf8');
  return {
    plain: writeRepeated(path.join(dir, 'plain.txt'), plainBlock(), sizes.plainBytes),
    sgr: writeRepeated(path.join(dir, 'sgr.txt'), sgrBlock(), sizes.sgrBytes),
    // 64 lines of 64 bytes: 4 KiB blocks, so the per-session output is an exact multiple of a KiB.
    scale: writeRepeated(path.join(dir, 'scale.txt'), plainBlock(63, 64), sizes.scaleBytes),
    scrollback: writeRepeated(path.join(dir, 'scrollback.txt'), scroll.toString('utf8'), scroll.length),
    // Colored, as build and test logs are: the agent's read strips the SGR, the panel's does not.
    agentLog: writeRepeated(path.join(dir, 'agent-log.txt'), sgrBlock(), sizes.agentLogBytes),
  };
}

/**
 * The first `bytes` of a data file as a command that prints them (`head -c`), for the floods' warm-ups:
 * figures 1 and 2 spawn `file.command ?? 'cat'` with `file.args ?? [file.path]`. Its last line may be
 * cut short; nothing checks a warm-up's bytes.
 */
export function headOf(file, bytes) {
  return { command: 'head', args: ['-c', String(Math.min(bytes, file.bytes)), file.path] };
}
