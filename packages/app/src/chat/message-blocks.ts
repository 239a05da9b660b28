/**
 * An agent's message as blocks a transcript can show: fenced code apart from
 * prose, and within prose `inline code` and **bold**. Agents answer in
 * Markdown; these are the parts that carry meaning in a terminal tool's chat
 * (commands, paths, code), and the rest reads fine as plain text (white space
 * kept). Only text comes out, never HTML: nothing an agent writes becomes markup.
 */
export type Span = { kind: 'text' | 'code' | 'strong'; text: string };
export type MessageBlock = { kind: 'prose'; spans: Span[] } | { kind: 'code'; lang: string | null; code: string };

/** A fence: three or more backticks (or tildes) at the start of a line, after at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

export function messageBlocks(text: string): MessageBlock[] {
  const blocks: MessageBlock[] = [];
  const lines = text.split('\n');
  let prose: string[] = [];
  const flushProse = () => {
    if (prose.length === 0) return;
    const joined = prose.join('\n');
    prose = [];
    if (joined.trim() !== '') blocks.push({ kind: 'prose', spans: inlineSpans(joined.replace(/^\n+|\n+$/g, '')) });
  };
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) {
      prose.push(lines[i]!);
      continue;
    }
    flushProse();
    const marker = open[1]!;
    const code: string[] = [];
    // A message still streaming may not have closed its fence yet: the rest is code until it does.
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trimStart().startsWith(marker[0]!.repeat(marker.length)) && line.trim().replace(/[`~]/g, '') === '') break;
      code.push(line);
    }
    blocks.push({ kind: 'code', lang: open[2] || null, code: code.join('\n') });
    i = j;
  }
  flushProse();
  return blocks;
}

/** `code` and **strong** spans of a prose block; an unmatched marker stays as typed. */
export function inlineSpans(text: string): Span[] {
  const spans: Span[] = [];
  const pattern = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const at = match.index;
    if (at > last) spans.push({ kind: 'text', text: text.slice(last, at) });
    if (match[2] !== undefined) spans.push({ kind: 'code', text: match[2] });
    else spans.push({ kind: 'strong', text: match[3]! });
    last = at + match[0].length;
  }
  if (last < text.length) spans.push({ kind: 'text', text: text.slice(last) });
  return spans;
}
