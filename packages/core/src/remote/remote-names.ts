// What a remote's name and ssh destination may be: checked where `remote add` is parsed (no zod there, the CLI's
// light commands load this) and again where remotes.json is written and read.

/** A name for the CLI and the panel: a word, so it needs no quoting anywhere it is shown or typed. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Why `destination` cannot be handed to ssh, or undefined when it can. It is
 * passed as one argv element after `--`, but a leading '-' would still read
 * as an option to some ssh builds (and to a reader), and whitespace or a
 * control character is never part of a user, host or alias.
 */
export function destinationProblem(destination: string): string | undefined {
  if (destination === '') return 'it is empty';
  if (destination.startsWith('-')) return "it starts with '-', which ssh would read as an option";
  if (/[\s\x00-\x1f\x7f-\x9f]/.test(destination)) return 'it contains whitespace or a control character';
  // Shown to the developer (the panel's host button, `remote ls`): nothing that reorders or hides what they read.
  if (/[\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(destination)) return 'it contains an invisible or direction-changing character';
  // ssh expands a destination into ProxyCommand's and `Match exec`'s %h and %r, which /bin/sh then reads: before
  // OpenSSH 9.6 (CVE-2023-51385) nothing stopped `host$(cmd)` running cmd for a config that uses them.
  if (/[`$;&|<>()'"\\*?{}]/.test(destination)) return 'it contains a character a shell reads (ssh hands a destination to ProxyCommand through /bin/sh)';
  if (destination.length > 255) return 'it is longer than 255 characters';
  return undefined;
}

export function nameProblem(name: string): string | undefined {
  return NAME_PATTERN.test(name) ? undefined : 'expected 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit';
}
