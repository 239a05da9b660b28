import { describe, expect, it } from 'vitest';
import { ApprovedEdits, optionAllows } from './approved-edits.js';

describe('optionAllows', () => {
  it('needs an allowing kind and a label that says allow, and nothing that says otherwise', () => {
    for (const name of ['Allow', 'Always Allow', 'Allow for this chat', 'Yes', "Yes, and don't ask again", 'Approve', 'Proceed']) {
      expect(optionAllows({ kind: 'allow_once', name }), name).toBe(true);
    }
    for (const name of ['Reject', 'No', 'Deny', 'Do not allow', 'Cancel', 'Allow? No', '']) {
      expect(optionAllows({ kind: 'allow_once', name }), name).toBe(false);
    }
    expect(optionAllows({ kind: 'reject_once', name: 'Allow' })).toBe(false);
    expect(optionAllows({ kind: 'future_kind', name: 'Allow' })).toBe(false);
  });
});

describe('ApprovedEdits', () => {
  const write = (path: string, content: string, target = path) => ({ sessionId: 's', path, target, content });

  it('covers one write of exactly what the card showed when asked, until the turn ends', () => {
    const edits = new ApprovedEdits();
    edits.track({ type: 'tool', toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: null, newText: 'A' }] });
    const shown = edits.shownOn('t');
    // Added to the card after the question: not part of what was allowed.
    edits.track({ type: 'tool', toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: null, newText: 'A' }, { type: 'diff', path: '/w/b', oldText: null, newText: 'B' }] });
    edits.allow(shown, 't');
    expect(edits.cardShowing('/w/b')).toBe('t');
    expect(edits.take(write('/w/b', 'B'))).toBe(false);
    expect(edits.take(write('/w/a', 'other'))).toBe(false);
    // Named through a link that leads elsewhere: not what was shown.
    expect(edits.take(write('/w/a', 'A', '/elsewhere/a'))).toBe(false);
    expect(edits.take(write('/w/x/../a', 'A', '/w/a'))).toBe(true);
    expect(edits.take(write('/w/a', 'A'))).toBe(false);

    edits.allow(shown, 't');
    edits.endTurn();
    expect(edits.take(write('/w/a', 'A'))).toBe(false);
  });

  it('covers only what the card still shows as the developer answers: a card the agent changed while it waited is asked about', () => {
    const edits = new ApprovedEdits();
    edits.track({ type: 'tool', toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: null, newText: 'EVIL' }] });
    const shown = edits.shownOn('t');
    // The agent's tool update while the question waits: the panel's card now shows another content (and another file).
    edits.track({ type: 'tool', toolCallId: 't', content: [{ type: 'diff', path: '/w/a', oldText: null, newText: 'fine' }, { type: 'diff', path: '/w/c', oldText: null, newText: 'C' }] });
    edits.allow(shown, 't');
    expect(edits.take(write('/w/a', 'EVIL'))).toBe(false);
    expect(edits.take(write('/w/a', 'fine'))).toBe(false);
    expect(edits.take(write('/w/c', 'C'))).toBe(false);
  });
});
