// One chat's events kept for replay after a reload, compacted by the contract's fold and bounded.
import { continuesMessage, foldToolCall, type ChatEvent, type ChatToolEvent } from '@ptydeck/contract';

export interface ChatLogOptions {
  /**
   * Characters of event JSON kept (approximately); the oldest events go first.
   * Default 1 Mi: every panel gets every chat's log on connect, 16 chats at most.
   */
  maxChars?: number;
  /** Events kept. Default 5000. */
  maxEvents?: number;
}

interface Entry {
  event: ChatEvent;
  /** Its JSON length, the cost counted against maxChars. */
  size: number;
}

/**
 * One chat's events, kept for `chat.list` replay after a reload: compacted
 * as the app applies them (consecutive chunks of one message become one
 * event, a tool call's updates fold into its card's event) and bounded, the
 * oldest dropped first with a notice saying so.
 */
export class ChatLog {
  private entries: Entry[] = [];
  private size = 0;
  private dropped = 0;
  private readonly maxChars: number;
  private readonly maxEvents: number;

  constructor(options: ChatLogOptions = {}) {
    this.maxChars = options.maxChars ?? 1024 * 1024;
    this.maxEvents = options.maxEvents ?? 5000;
  }

  append(event: ChatEvent): void {
    const last = this.entries.at(-1);
    if (event.type === 'message' && last?.event.type === 'message' && continuesMessage(last.event, event)) {
      // Counted by growth, not re-serialised: a long answer arrives in thousands of chunks.
      last.event = { ...last.event, text: last.event.text + event.text };
      last.size += event.text.length;
      this.size += event.text.length;
    } else if (event.type === 'tool' && this.foldTool(event)) {
      // folded into the card's first event
    } else {
      const entry = { event, size: sizeOf(event) };
      this.entries.push(entry);
      this.size += entry.size;
    }
    this.trim();
  }

  /** The events to replay, oldest first; a notice leads when older ones were dropped. */
  events(): ChatEvent[] {
    const events = this.entries.map((entry) => entry.event);
    if (this.dropped === 0) return events;
    return [{ type: 'notice', level: 'info', text: `${this.dropped} earlier events of this chat are no longer kept.` }, ...events];
  }

  /** Applies an update to the card's event where it was created, as the app does (the contract's fold). */
  private foldTool(event: ChatToolEvent): boolean {
    const entry = this.entries.find((e) => e.event.type === 'tool' && e.event.toolCallId === event.toolCallId);
    if (entry?.event.type !== 'tool') return false;
    this.replace(entry, foldToolCall(entry.event, event));
    return true;
  }

  private replace(entry: Entry, event: ChatEvent): void {
    this.size -= entry.size;
    entry.event = event;
    entry.size = sizeOf(event);
    this.size += entry.size;
  }

  private trim(): void {
    // Keep the newest event even when it alone is over the budget: a chat showing nothing would be worse.
    while (this.entries.length > 1 && (this.size > this.maxChars || this.entries.length > this.maxEvents)) {
      this.size -= this.entries.shift()!.size;
      this.dropped++;
    }
  }
}

function sizeOf(event: ChatEvent): number {
  return JSON.stringify(event).length;
}
