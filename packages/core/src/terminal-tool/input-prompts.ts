/**
 * Recognises programs that stopped to ask for input, from the last lines of
 * their plain-text output. Each pattern names what it found so a model knows
 * what kind of answer is expected.
 */

import type { InputPromptKind as AnyPromptKind } from '@ptydeck/contract';

/** The kinds a prompt's text can reveal ('unknown' is for a wait the kernel saw and the text does not name). */
export type InputPromptKind = Exclude<AnyPromptKind, 'unknown'>;

interface PromptPattern {
  kind: InputPromptKind;
  /** Tested against the last line (the text after the last newline). */
  lastLine?: RegExp;
  /** Tested against the last few lines, for prompts that draw choices below the question. */
  recentLines?: RegExp;
}

const PATTERNS: PromptPattern[] = [
  { kind: 'confirm', lastLine: /[[(](?:y\/n|yes\/no)(?:\/[^\])]*)?[\])]\s*[?:]?\s*$/i },
  { kind: 'confirm', lastLine: /\(yes\/no(?:\/\[fingerprint\])?\)\?\s*$/i },
  { kind: 'password', lastLine: /(?:password|passphrase|passcode|pin)(?: for [^:]*)?[^:\n]{0,40}:\s*$/i },
  { kind: 'pager', lastLine: /^\s*(?:\(END\)|--More--(?:\(\d+%\))?|:)\s*$/ },
  { kind: 'pager', lastLine: /--More--/ },
  // Inquirer / prompts / clack style questions: "? Pick one ›" with choices drawn below.
  { kind: 'select', recentLines: /^\s*[?✔✖◆◇]\s.*[›❯]/m },
  { kind: 'repl', lastLine: /^(?:>>>|\.\.\.) $/ },
  { kind: 'repl', lastLine: /^(?:In \[\d+\]:|irb\(main\):\d+:\d+[>*]|>) $/ },
  { kind: 'repl', lastLine: /^(?:sqlite|mysql|postgres|[a-z_]+=[#>])[> ]?\s?$/i },
  { kind: 'press_key', lastLine: /press (?:enter|return|any key)[^\n]*$/i },
];

/** The kind of input the output's tail asks for, or null when it does not look like a prompt. */
export function detectInputPrompt(tail: string): InputPromptKind | null {
  const lastBreak = tail.lastIndexOf('\n');
  const lastLine = tail.slice(lastBreak + 1);
  const recent = tail.split('\n').slice(-8).join('\n');
  for (const pattern of PATTERNS) {
    if (pattern.lastLine && lastLine.trim() !== '' && pattern.lastLine.test(lastLine)) return pattern.kind;
    if (pattern.recentLines && pattern.recentLines.test(recent)) return pattern.kind;
  }
  return null;
}

/** A plausible interactive shell prompt at the end of output, for shells without integration. */
export function looksLikeShellPrompt(tail: string): boolean {
  const lastLine = tail.slice(tail.lastIndexOf('\n') + 1);
  return /[$#%❯]\s?$/.test(lastLine);
}

/**
 * Whether the output ends the way a prompt leaves a terminal: the cursor right
 * after text on the last line, not on a fresh line. A server printing its log
 * ends each line with a newline; a question leaves the cursor after it.
 */
export function endsLikeAPrompt(tail: string): boolean {
  return lastLine(tail).trim() !== '';
}

/** The last line of plain text, as a person sees it. */
export function lastLine(tail: string): string {
  return tail.slice(tail.lastIndexOf('\n') + 1);
}
