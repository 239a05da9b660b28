/**
 * Recognises programs that stopped to ask for input, from the last lines of
 * their plain-text output. Each pattern names what it found so a model knows
 * what kind of answer is expected.
 */

export type InputPromptKind = 'confirm' | 'password' | 'pager' | 'select' | 'repl' | 'press_key';

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
