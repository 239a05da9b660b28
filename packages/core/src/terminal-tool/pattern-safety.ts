// Which agents' patterns V8's backtracking engine matches in time bounded by the text times the pattern.

/**
 * Whether V8 matches `source` (a non-unicode regular expression) in time
 * bounded by the text's length times the pattern's: true only for patterns
 * with no repetition (`*`, `+`, `?`, `{n,m}`), alternation outside every group
 * only, and no backreference. Each start position then takes one path through
 * the pattern. One quantifier is enough to be quadratic (`a*b` over 64 KiB of
 * a's held the loop for 1.4 s), so anything else is matched off the loop.
 * Errs towards false: a pattern it cannot read is not called linear.
 */
export function runsInLinearTime(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      // \1..\9 and \k<name> refer back to a group: what they match is not bounded by the pattern.
      if (next === undefined || next === 'k' || (next >= '1' && next <= '9')) return false;
      i++;
    } else if (c === '[') {
      // A class is one character whatever it holds; its first `]` (after an optional `^`) ends it, as in JavaScript.
      i++;
      if (source[i] === '^') i++;
      while (i < source.length && source[i] !== ']') {
        if (source[i] === '\\') i++;
        i++;
      }
      if (i >= source.length) return false;
    } else if (c === '(') {
      depth++;
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>: the `?` opens a group, it repeats nothing.
      if (source[i + 1] === '?') i++;
    } else if (c === ')') {
      depth--;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      return false;
    } else if (c === '|' && depth > 0) {
      // Alternatives inside groups multiply: (a|a)(a|a)... tries 2^n paths per start.
      return false;
    }
  }
  return depth === 0;
}
