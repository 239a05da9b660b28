import { describe, expect, it } from 'vitest';
import { inlineSpans, messageBlocks } from './message-blocks.js';

describe('messageBlocks', () => {
  it('keeps plain text as one prose block', () => {
    expect(messageBlocks('You said: hello')).toEqual([{ kind: 'prose', spans: [{ kind: 'text', text: 'You said: hello' }] }]);
  });

  it('sets fenced code apart, with its language, and keeps the prose around it', () => {
    const text = 'Run this:\n\n```bash\nnpm test\necho "`done`"\n```\n\nThen **commit**.';
    expect(messageBlocks(text)).toEqual([
      { kind: 'prose', spans: [{ kind: 'text', text: 'Run this:' }] },
      { kind: 'code', lang: 'bash', code: 'npm test\necho "`done`"' },
      { kind: 'prose', spans: [{ kind: 'text', text: 'Then ' }, { kind: 'strong', text: 'commit' }, { kind: 'text', text: '.' }] },
    ]);
  });

  it('shows a fence still streaming as code to the end', () => {
    expect(messageBlocks('Here:\n~~~\nline 1\nline 2')).toEqual([
      { kind: 'prose', spans: [{ kind: 'text', text: 'Here:' }] },
      { kind: 'code', lang: null, code: 'line 1\nline 2' },
    ]);
  });

  it('closes a fence only with a line of the same marker at least as long', () => {
    expect(messageBlocks('````\n```\ninner\n```\n````')).toEqual([{ kind: 'code', lang: null, code: '```\ninner\n```' }]);
  });

  it('never turns what an agent wrote into markup: HTML stays text', () => {
    expect(messageBlocks('<img src=x onerror=alert(1)>')).toEqual([{ kind: 'prose', spans: [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }] }]);
  });
});

describe('inlineSpans', () => {
  it('finds code and strong spans, and leaves unmatched markers as typed', () => {
    expect(inlineSpans('edit `src/a.ts` and ``b`c`` now, **really**; a * b ** c and `open')).toEqual([
      { kind: 'text', text: 'edit ' },
      { kind: 'code', text: 'src/a.ts' },
      { kind: 'text', text: ' and ' },
      { kind: 'code', text: 'b`c' },
      { kind: 'text', text: ' now, ' },
      { kind: 'strong', text: 'really' },
      { kind: 'text', text: '; a * b ** c and `open' },
    ]);
  });
});
