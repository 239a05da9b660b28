// Edits the developer already allowed in the agent's own question, so the write that follows is not asked about
// twice.
import path from 'node:path';
import type { ChatEvent } from '@ptydeck/contract';
import type { WriteRequest } from './acp-client.js';

/** A file change a tool call's card shows. */
export interface ShownDiff {
  path: string;
  newText: string;
}

/** Tool calls whose diffs are remembered at once; past it the oldest card is forgotten (its edits are asked about). */
const MAX_CARDS = 256;

/**
 * Edits the developer allowed in the agent's own permission question, so the
 * write that carries one out is not asked about twice (Gemini CLI and older
 * Claude adapters ask, then write through fs/write_text_file). An allowance
 * covers exactly what the card showed when the question was asked: one write
 * of that path, resolved to itself (no link or `..` taking it elsewhere), with
 * that content, before the prompt turn ends. A diff added to the card after
 * the answer, another path, other content or a later turn is asked about.
 */
export class ApprovedEdits {
  /** The diffs each tool call's card shows now: a tool update's content replaces the card's, as the app shows it. */
  private readonly cards = new Map<string, ShownDiff[]>();
  private allowed: ShownDiff[] = [];

  /** Follows a tool call's card as its updates arrive. */
  track(event: Extract<ChatEvent, { type: 'tool' }>): void {
    if (event.content === undefined) return;
    const diffs = event.content.flatMap((item) => (item.type === 'diff' ? [{ path: path.resolve(item.path), newText: item.newText }] : []));
    this.cards.delete(event.toolCallId);
    if (diffs.length === 0) return;
    this.cards.set(event.toolCallId, diffs);
    if (this.cards.size > MAX_CARDS) this.cards.delete(this.cards.keys().next().value!);
  }

  /** The card's diffs right now: what the developer sees when a question is asked. */
  shownOn(toolCallId: string): ShownDiff[] {
    return [...(this.cards.get(toolCallId) ?? [])];
  }

  /** The latest card showing a diff of `target`, for the write question to be shown on. */
  cardShowing(target: string): string | undefined {
    let found: string | undefined;
    for (const [toolCallId, diffs] of this.cards) if (diffs.some((diff) => diff.path === target)) found = toolCallId;
    return found;
  }

  /**
   * The developer allowed these (`shown` as the question was asked, on card `toolCallId`), with an option that
   * says allow. Only those the card still shows as they answer are allowed: the agent may change the card while
   * the question waits, and the developer answers about what they see then (before, a card shown with one file's
   * content and changed to another before the answer let the first be written unasked).
   */
  allow(shown: ShownDiff[], toolCallId: string): void {
    const now = this.cards.get(toolCallId) ?? [];
    this.allowed.push(...shown.filter((diff) => now.some((still) => still.path === diff.path && still.newText === diff.newText)));
  }

  /** Takes the allowance for exactly this write, if there is one (each covers one write). */
  take(write: WriteRequest): boolean {
    const index = this.allowed.findIndex((diff) => diff.path === write.target && diff.path === path.resolve(write.path) && diff.newText === write.content);
    if (index < 0) return false;
    this.allowed.splice(index, 1);
    return true;
  }

  /** The turn ended: what was allowed in it is spent. */
  endTurn(): void {
    this.allowed = [];
  }
}

const ALLOW_WORDS = /\b(allow|allowed|yes|approve|accept|always|proceed|ok|okay|apply|confirm|continue|trust|grant)\b/i;
const REJECT_WORDS = /\b(reject|deny|decline|disallow|no|not|don'?t|never|cancel|block|skip|refuse|stop|abort)\b/i;
/** "Yes, and don't ask again" allows: the negation is about asking. */
const DONT_ASK = /\b(don'?t|do not|never) ask( me)?( again)?\b/gi;

/**
 * Whether an option the agent offers says "allow" in both its kind and its
 * label. The developer reads the label; the agent is told the kind. An option
 * of kind allow_once labelled "Reject" allows nothing in the developer's eyes,
 * so it earns no skipped question.
 */
export function optionAllows(option: { kind: string; name: string }): boolean {
  if (option.kind !== 'allow_once' && option.kind !== 'allow_always') return false;
  const label = option.name.replace(DONT_ASK, '');
  return ALLOW_WORDS.test(label) && !REJECT_WORDS.test(label);
}
