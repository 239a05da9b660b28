// The chat pane's state, folded from the core's chat events and the developer's choices; pure, so it is tested
// without a DOM.
import { continuesMessage, foldToolCall, type ChatEvent, type ChatInfo, type ChatToolEvent } from '@ptydeck/contract';
import type { Chat, ChatAction, ChatsState, TranscriptEntry } from './chat-state.js';

/**
 * Turns the core's chat messages and the developer's choices into the chat
 * pane's state. Pure, like the deck reducer: every rule of how events apply
 * (chat-protocol.ts) is unit-tested here without a DOM or a socket.
 */
export function chatReducer(state: ChatsState, action: ChatAction): ChatsState {
  switch (action.type) {
    case 'agents':
      return { ...state, catalog: action.catalog };
    case 'list': {
      // The core's word on every chat (a connect or reconnect): replaces what we had.
      const chats = sortChats(action.chats.map(({ info, events }) => events.reduce(applyEvent, emptyChat(info))));
      const activeId = chats.some((chat) => chat.info.id === state.activeId) ? state.activeId : (chats.at(-1)?.info.id ?? null);
      return { ...state, chats, activeId };
    }
    case 'opened': {
      const exists = state.chats.some((chat) => chat.info.id === action.info.id);
      const chats = exists
        ? state.chats.map((chat) => (chat.info.id === action.info.id ? { ...chat, info: action.info } : chat))
        : sortChats([...state.chats, emptyChat(action.info)]);
      const ours = action.requestId !== undefined && state.openings.some((opening) => opening.requestId === action.requestId);
      return {
        ...state,
        chats,
        openings: ours ? state.openings.filter((opening) => opening.requestId !== action.requestId) : state.openings,
        // Another window's chat joins the list without taking the developer's place.
        activeId: ours ? action.info.id : state.activeId,
      };
    }
    case 'event': {
      const chat = state.chats.find((candidate) => candidate.info.id === action.chatId);
      if (!chat) return state;
      const next = applyEvent(chat, action.event);
      return next === chat ? state : { ...state, chats: state.chats.map((candidate) => (candidate === chat ? next : candidate)) };
    }
    case 'closed': {
      const index = state.chats.findIndex((chat) => chat.info.id === action.chatId);
      if (index < 0) return state;
      const chats = state.chats.filter((chat) => chat.info.id !== action.chatId);
      const activeId = state.activeId === action.chatId ? ((chats[index] ?? chats[index - 1])?.info.id ?? null) : state.activeId;
      return { ...state, chats, activeId };
    }
    case 'open-requested':
      return { ...state, openings: [...state.openings, { requestId: action.requestId, agent: action.agent, error: null }] };
    case 'open-failed':
      return state.openings.some((opening) => opening.requestId === action.requestId)
        ? {
            ...state,
            openings: state.openings.map((opening) =>
              opening.requestId === action.requestId ? { ...opening, error: action.message } : opening,
            ),
          }
        : state;
    case 'dismiss-opening':
      return { ...state, openings: state.openings.filter((opening) => opening.requestId !== action.requestId) };
    case 'select':
      return action.chatId === null || state.chats.some((chat) => chat.info.id === action.chatId)
        ? { ...state, activeId: action.chatId }
        : state;
  }
}

export function emptyChat(info: ChatInfo): Chat {
  return { key: info.id, info, entries: [], plan: [], questions: [], seq: 0 };
}

/** Applies one chat event as chat-protocol.ts describes. */
export function applyEvent(chat: Chat, event: ChatEvent): Chat {
  switch (event.type) {
    case 'message': {
      const last = chat.entries.at(-1);
      if (last?.kind === 'message' && continuesMessage(last, event)) {
        return { ...chat, entries: [...chat.entries.slice(0, -1), { ...last, text: last.text + event.text }] };
      }
      return append(chat, { kind: 'message', key: '', role: event.role, messageId: event.messageId ?? null, text: event.text });
    }
    case 'tool': {
      const index = chat.entries.findIndex((entry) => entry.kind === 'tool' && entry.toolCallId === event.toolCallId);
      if (index < 0) return append(chat, toolCard('', event));
      const entries = [...chat.entries];
      const card = entries[index] as ToolCard;
      entries[index] = toolCard(card.key, foldToolCall(toolCallOf(card), event));
      return { ...chat, entries };
    }
    case 'plan':
      return { ...chat, plan: event.entries };
    case 'state': {
      // An ended chat asks nothing any more.
      const next = { ...chat, info: event.info, questions: event.info.state === 'ended' ? [] : chat.questions };
      // A turn the agent did not finish on its own says why; a normal end needs no words.
      return event.stopReason !== undefined && event.stopReason !== 'end_turn'
        ? append(next, { kind: 'turn-end', key: '', stopReason: event.stopReason })
        : next;
    }
    case 'question': {
      const { type: _type, ...question } = event;
      const others = chat.questions.filter((open) => open.questionId !== event.questionId);
      return { ...chat, questions: [...others, { ...question, key: event.questionId }] };
    }
    case 'answered':
      return chat.questions.some((open) => open.questionId === event.questionId)
        ? { ...chat, questions: chat.questions.filter((open) => open.questionId !== event.questionId) }
        : chat;
    case 'notice':
      return append(chat, { kind: 'notice', key: '', level: event.level, text: event.text });
  }
}

type ToolCard = Extract<TranscriptEntry, { kind: 'tool' }>;

/** A tool call as its card shows it: what the agent left out gets a readable default. */
function toolCard(key: string, call: ChatToolEvent): ToolCard {
  return {
    kind: 'tool',
    key,
    toolCallId: call.toolCallId,
    title: call.title ?? call.toolCallId,
    toolKind: call.kind ?? 'other',
    status: call.status ?? 'pending',
    content: call.content ?? [],
    locations: call.locations ?? [],
  };
}

function toolCallOf(card: ToolCard): ChatToolEvent {
  return { type: 'tool', toolCallId: card.toolCallId, title: card.title, kind: card.toolKind, status: card.status, content: card.content, locations: card.locations };
}

function append(chat: Chat, entry: TranscriptEntry): Chat {
  return { ...chat, entries: [...chat.entries, { ...entry, key: `e${chat.seq}` }], seq: chat.seq + 1 };
}

function sortChats(chats: Chat[]): Chat[] {
  return [...chats].sort((a, b) => a.info.createdAt - b.info.createdAt);
}
