// The chat pane's state and actions as types: the shape the chat reducer folds into and the pane renders.
import type { ChatAgentChoice, ChatEvent, ChatInfo, ChatToolEvent as ToolEvent, PlanEntry, ToolContent } from '@ptydeck/contract';

type QuestionEvent = Extract<ChatEvent, { type: 'question' }>;

/** One entry of a chat's transcript, in arrival order. `key` is stable for the entry's life (list rendering). */
export type TranscriptEntry =
  | { kind: 'message'; key: string; role: 'user' | 'agent' | 'thought'; messageId: string | null; text: string }
  | {
      kind: 'tool';
      key: string;
      toolCallId: string;
      title: string;
      toolKind: NonNullable<ToolEvent['kind']>;
      status: NonNullable<ToolEvent['status']>;
      content: ToolContent[];
      locations: NonNullable<ToolEvent['locations']>;
    }
  | { kind: 'notice'; key: string; level: 'info' | 'error'; text: string }
  /** A turn that ended for another reason than the agent finishing (cancelled, refusal, max_tokens). */
  | { kind: 'turn-end'; key: string; stopReason: string };

/** `key` is the questionId: the identity a rendered list keeps rows by. */
export type OpenQuestion = Omit<QuestionEvent, 'type'> & { key: string };

export interface Chat {
  /** The chat's id, under the name every list in this state is keyed by (see ChatContext's reconcile). */
  key: string;
  info: ChatInfo;
  entries: TranscriptEntry[];
  /** The agent's latest plan (each update replaces it); empty when it has none. */
  plan: PlanEntry[];
  /** Questions waiting for the developer, oldest first. */
  questions: OpenQuestion[];
  /** Next entry key: keys never repeat within a chat, so a list keeps its rows. */
  seq: number;
}

export interface AgentCatalog {
  agents: ChatAgentChoice[];
  configPath: string;
  configError: string | null;
}

export interface ChatOpening {
  requestId: string;
  agent: string;
  /** Why the server refused it; null while it is in flight. */
  error: string | null;
}

export interface ChatsState {
  /** What can be started; null until the server said. */
  catalog: AgentCatalog | null;
  /** Every chat the core hosts, oldest first. */
  chats: Chat[];
  /** The chat in front; null shows the start form. */
  activeId: string | null;
  /** This panel's own `chat.open` requests: in flight, or failed (shown next to the Start button). */
  openings: ChatOpening[];
}

export const initialChatsState: ChatsState = { catalog: null, chats: [], activeId: null, openings: [] };

export type ChatAction =
  | { type: 'agents'; catalog: AgentCatalog }
  | { type: 'list'; chats: { info: ChatInfo; events: ChatEvent[] }[] }
  /** `requestId` is set when this panel asked: that chat comes to the front. */
  | { type: 'opened'; info: ChatInfo; requestId?: string }
  | { type: 'event'; chatId: string; event: ChatEvent }
  | { type: 'closed'; chatId: string }
  | { type: 'open-requested'; requestId: string; agent: string }
  | { type: 'open-failed'; requestId: string; message: string }
  | { type: 'dismiss-opening'; requestId: string }
  /** null: the start form. */
  | { type: 'select'; chatId: string | null };
