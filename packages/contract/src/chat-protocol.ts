/**
 * Chats with ACP agents that ptydeck hosts (core ⇄ app, over the panel
 * WebSocket). The core speaks ACP to the agent process and hands the app a
 * neutral, already-normalised stream of chat events: the app never sees ACP
 * itself, so ACP's v2 (agent-owned terminals, MCP-only file access) changes
 * the core's mapping, not these schemas.
 *
 * A chat lives in the core, not in a page: a reload gets each chat's events
 * again in the `chat.list` sent on connect (consecutive text chunks merged).
 */
import { z } from 'zod';
import { SessionId } from './session.js';

/** Opaque chat id, minted by the core. */
export const ChatId = z.string().min(1).max(128);
export type ChatId = z.infer<typeof ChatId>;

/** Longest prompt the panel sends in one message. */
export const MAX_CHAT_PROMPT_CHARS = 256 * 1024;

/** An agent the developer can start: from agents.json, or a known agent found on PATH. */
export const ChatAgentChoice = z.object({
  /** Unique among the choices; what `chat.open` names. */
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  /** 'config': agents.json; 'path': a known ACP agent found on PATH (not in the file). */
  origin: z.enum(['config', 'path']),
});
export type ChatAgentChoice = z.infer<typeof ChatAgentChoice>;

export const ChatState = z.enum([
  /** The agent process is starting (initialize, session/new). */
  'starting',
  /** Waiting for the developer's prompt. */
  'ready',
  /** A prompt turn is running. */
  'prompting',
  /** The agent process ended, or never started; `ChatInfo.error` says why. */
  'ended',
]);
export type ChatState = z.infer<typeof ChatState>;

export const ChatInfo = z.object({
  id: ChatId,
  /** The agent's name as chosen (agents.json name). */
  agentName: z.string(),
  /** Owner id given to every PTY session this chat's agent creates (ACP terminals and its MCP terminal tool). */
  owner: z.string(),
  cwd: z.string(),
  state: ChatState,
  /** Why the chat ended or failed to start, for the developer (the agent's last stderr included). */
  error: z.string().nullable(),
  /** Epoch milliseconds. */
  createdAt: z.number(),
});
export type ChatInfo = z.infer<typeof ChatInfo>;

/** A tool call's content, normalised from ACP's content blocks. */
export const ToolContent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('diff'),
    path: z.string(),
    /** null for a new file. */
    oldText: z.string().nullable(),
    newText: z.string(),
  }),
  /**
   * A terminal shown in the card: `sessionId` is the ptydeck PTY session
   * (an ACP terminal, or the read-only tab of an agent-owned one), so the
   * card streams it like any tab and its header can open that tab.
   */
  z.object({ type: z.literal('terminal'), sessionId: SessionId }),
]);
export type ToolContent = z.infer<typeof ToolContent>;

export const ToolKind = z.enum(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
export const ToolStatus = z.enum(['pending', 'in_progress', 'completed', 'failed']);

export const PlanEntry = z.object({
  content: z.string(),
  priority: z.enum(['high', 'medium', 'low']),
  status: z.enum(['pending', 'in_progress', 'completed']),
});
export type PlanEntry = z.infer<typeof PlanEntry>;

/** One option of a question to the developer (ACP's permission options; ptydeck's own for file writes). */
export const QuestionOption = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['allow_once', 'allow_always', 'reject_once', 'reject_always']),
});

/**
 * Something in a chat. Apply in order (chat-fold.ts has the rules): `message`
 * chunks append to the last entry when it has the same role and messageId (a
 * chunk without one continues only a message without one); `tool` creates the
 * card for a new toolCallId, else replaces the fields it carries (content
 * replaces content); `plan` replaces the whole plan.
 */
export const ChatEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message'),
    role: z.enum(['user', 'agent', 'thought']),
    messageId: z.string().optional(),
    text: z.string(),
  }),
  z.object({
    type: z.literal('tool'),
    toolCallId: z.string(),
    title: z.string().optional(),
    kind: ToolKind.optional(),
    status: ToolStatus.optional(),
    content: z.array(ToolContent).optional(),
    /** Files the call touches, for the card's subtitle. */
    locations: z.array(z.object({ path: z.string(), line: z.number().int().nullable().optional() })).optional(),
  }),
  z.object({ type: z.literal('plan'), entries: z.array(PlanEntry) }),
  /** The chat's state changed (turn started or ended, agent exited); carries the whole info. */
  z.object({
    type: z.literal('state'),
    info: ChatInfo,
    /** ACP's stopReason when a turn ended: 'end_turn', 'cancelled', 'max_tokens', 'refusal', ... */
    stopReason: z.string().optional(),
  }),
  /** The agent (or ptydeck for a file write) asks the developer; answer with `chat.answer`. */
  z.object({
    type: z.literal('question'),
    questionId: z.string(),
    /** Usually the tool call it is about. */
    toolCallId: z.string().optional(),
    title: z.string(),
    /** What exactly would happen, e.g. the file path or the command. */
    detail: z.string().optional(),
    options: z.array(QuestionOption).min(1),
  }),
  /** A question was answered (by anyone, or cancelled with the turn): close its dialog. */
  z.object({
    type: z.literal('answered'),
    questionId: z.string(),
    /** The option chosen, or null when cancelled. */
    optionId: z.string().nullable(),
  }),
  /** For the developer, not from the agent: it exited, a request failed, a file was written. */
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'error']), text: z.string() }),
]);
export type ChatEvent = z.infer<typeof ChatEvent>;

// ---- app → core ----

/** Start an agent and open a session with it. Answered with `chat.opened` (same requestId) or an `error` with the requestId. */
export const ChatOpenMessage = z.object({
  type: z.literal('chat.open'),
  requestId: z.string().max(64),
  agent: z.string().max(200),
  /** Absolute working directory; default the server's launch directory. */
  cwd: z.string().max(4096).optional(),
});
export const ChatPromptMessage = z.object({
  type: z.literal('chat.prompt'),
  chatId: ChatId,
  text: z.string().min(1).max(MAX_CHAT_PROMPT_CHARS),
});
/** Cancels the running turn: session/cancel, and every open question answered as cancelled. */
export const ChatCancelMessage = z.object({ type: z.literal('chat.cancel'), chatId: ChatId });
export const ChatAnswerMessage = z.object({
  type: z.literal('chat.answer'),
  chatId: ChatId,
  questionId: z.string().max(128),
  /** One of the question's option ids, or null to dismiss (answered as cancelled). */
  optionId: z.string().max(128).nullable(),
});
/** Ends the agent process and forgets the chat. */
export const ChatCloseMessage = z.object({ type: z.literal('chat.close'), chatId: ChatId });
/** Re-reads agents.json and PATH; answered with `chat.agents`. */
export const ChatRefreshAgentsMessage = z.object({ type: z.literal('chat.refresh_agents') });

export const ChatClientMessage = z.discriminatedUnion('type', [
  ChatOpenMessage,
  ChatPromptMessage,
  ChatCancelMessage,
  ChatAnswerMessage,
  ChatCloseMessage,
  ChatRefreshAgentsMessage,
]);
export type ChatClientMessage = z.infer<typeof ChatClientMessage>;

// ---- core → app ----

/** The agents one can start, and why agents.json could not be used (shown, never a crash). */
export const ChatAgentsMessage = z.object({
  type: z.literal('chat.agents'),
  agents: z.array(ChatAgentChoice),
  /** Path of agents.json, to tell the developer where to add one. */
  configPath: z.string(),
  /** Why agents.json was not used (unreadable, not JSON, wrong shape), or null. */
  configError: z.string().nullable(),
});
/** Sent once on connect, after the snapshot: every chat with its events so far. */
export const ChatListMessage = z.object({
  type: z.literal('chat.list'),
  chats: z.array(z.object({ info: ChatInfo, events: z.array(ChatEvent) })),
});
export const ChatOpenedMessage = z.object({
  type: z.literal('chat.opened'),
  /** Set on the answer to this panel's own `chat.open`; other panels hear of the chat without it. */
  requestId: z.string().optional(),
  info: ChatInfo,
});
export const ChatEventMessage = z.object({ type: z.literal('chat.event'), chatId: ChatId, event: ChatEvent });
export const ChatClosedMessage = z.object({ type: z.literal('chat.closed'), chatId: ChatId });

export const ChatServerMessage = z.discriminatedUnion('type', [
  ChatAgentsMessage,
  ChatListMessage,
  ChatOpenedMessage,
  ChatEventMessage,
  ChatClosedMessage,
]);
export type ChatServerMessage = z.infer<typeof ChatServerMessage>;
