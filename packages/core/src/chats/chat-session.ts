// One chat: its agent process and session, the questions it asks, its terminals and its event log.
import { randomUUID } from 'node:crypto';
import type { McpServer, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { DisposableStore, Emitter, QuestionOption, reportError, type ChatEvent, type ChatInfo, type ErrorReporter, type OnEvent } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import type { WriteDecision, WriteRequest } from './acp-client.js';
import { ApprovedEdits, optionAllows } from './approved-edits.js';
import type { AcpTerminalsOptions } from './acp-terminals.js';
import { lastWords, startAcpAgent, type AcpAgent, type AgentExit } from './agent-process.js';
import { AgentOwnedTerminals } from './agent-owned-terminals.js';
import type { AgentConfig } from './agents-config.js';
import { agentTerminalReports, commandOf, toChatEvents } from './chat-events.js';
import { ChatLog } from './chat-log.js';
import { CHAT_HOST_ENV, chatHostMark } from './orphaned-agents.js';
import { CHAT_ID_ENV, HOST_ID_ENV } from '../common/env-names.js';

/** A chat request that cannot be served, with a code for the panel's `error` message. */
export class ChatError extends Error {
  override readonly name = 'ChatError';
  constructor(
    readonly code: 'no_such_chat' | 'no_such_agent' | 'invalid_cwd' | 'chat_limit' | 'chat_busy' | 'chat_not_ready' | 'no_such_question' | 'invalid_option' | 'disposed',
    message: string,
  ) {
    super(message);
  }
}

export interface ChatSessionOptions {
  service: PtyService;
  agent: AgentConfig;
  /** Absolute, existing. */
  cwd: string;
  /** Base environment of the agent process. */
  env?: Record<string, string | undefined>;
  /** Owner id of every PTY session the chat's agent creates. */
  owner: string;
  /** ptydeck's own MCP server for this chat, passed in session/new. */
  mcpServers?: McpServer[];
  version?: string;
  terminals?: Omit<AcpTerminalsOptions, 'owner' | 'ownerName' | 'cwdOf'>;
  killGraceMs?: number;
  /** The agent's process exists (see StartAgentOptions.onSpawned). */
  onAgentSpawned?: (pid: number) => void;
  onError?: ErrorReporter;
}

/** ptydeck's own answers to "may the agent write this file?", and what each means to the ACP client. */
const WRITE_OPTIONS = [
  { id: 'allow_once', name: 'Allow', kind: 'allow_once', decision: 'allow_once' },
  { id: 'allow_always', name: 'Allow for this chat', kind: 'allow_always', decision: 'allow_for_session' },
  { id: 'reject_once', name: 'Reject', kind: 'reject_once', decision: 'reject' },
] as const;

interface Question {
  optionIds: Set<string>;
  /** Settles the question with the chosen option, or null when dismissed or cancelled. */
  settle(optionId: string | null): void;
}

/**
 * One chat: an ACP agent process with one session, its questions to the
 * developer, the terminals it runs itself, and the event log a reloaded
 * panel replays. State moves starting → ready ⇄ prompting → ended, only
 * through the methods here.
 */
export class ChatSession {
  readonly id = `chat-${randomUUID()}`;
  private info: ChatInfo;
  private readonly log = new ChatLog();
  private readonly emitter: Emitter<ChatEvent>;
  /** Every event, in order, as it is also logged. */
  readonly onEvent: OnEvent<ChatEvent>;
  private readonly questions = new Map<string, Question>();
  /** The diffs the tool cards show, and the edits the developer allowed on them. */
  private readonly edits = new ApprovedEdits();
  private readonly ownTerminals: AgentOwnedTerminals;
  private readonly subscriptions: DisposableStore;
  private readonly report: ErrorReporter;
  private agent: AcpAgent | undefined;
  private stopping = false;
  /** Aborted by close(): ends the agent even while it starts. */
  private readonly stopper = new AbortController();

  constructor(private readonly options: ChatSessionOptions) {
    this.report = options.onError ?? reportError;
    this.emitter = new Emitter({ name: 'chat event', onListenerError: this.report });
    this.onEvent = this.emitter.on;
    this.subscriptions = new DisposableStore(this.report);
    this.info = {
      id: this.id,
      agentName: options.agent.name,
      owner: options.owner,
      cwd: options.cwd,
      state: 'starting',
      error: null,
      createdAt: Date.now(),
    };
    this.ownTerminals = new AgentOwnedTerminals(options.service, {
      owner: options.owner,
      ownerName: options.agent.name,
      cwd: options.cwd,
      onRefused: (_terminalId, reason) => this.emit({ type: 'notice', level: 'error', text: `A terminal of the agent's is not shown: ${reason}` }),
    });
  }

  get snapshot(): ChatInfo {
    return { ...this.info };
  }

  events(): ChatEvent[] {
    return this.log.events();
  }

  /** Starts the agent and opens its session; failures end the chat with the reason (never throws). */
  async start(): Promise<void> {
    const { agent: config, service, cwd } = this.options;
    let agent: AcpAgent;
    try {
      agent = await startAcpAgent(config, {
        service,
        cwd,
        // Marks the agent and all it starts as this chat's: no panel link for them (see peer-process.ts).
        // With the host's mark: a later host of the same state directory (its id) ends, or lists for the developer
        // to end, what this chat leaves if this host dies without closing it.
        env: { ...(this.options.env ?? process.env), [CHAT_ID_ENV]: this.id, [CHAT_HOST_ENV]: chatHostMark(), [HOST_ID_ENV]: service.labels.hostId },
        onSpawned: this.options.onAgentSpawned,
        version: this.options.version,
        mcpServers: this.options.mcpServers,
        terminals: { ...this.options.terminals, owner: this.options.owner },
        killGraceMs: this.options.killGraceMs,
        signal: this.stopper.signal,
        onError: this.report,
        requestPermission: (request, signal) => this.askPermission(request, signal),
        approveWrite: (write, signal) => this.askWrite(write, signal),
        wrote: (path) => this.emit({ type: 'notice', level: 'info', text: `The agent wrote ${path}` }),
        onSessionUpdate: ({ update }) => this.onUpdate(update),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!this.stopping) this.emit({ type: 'notice', level: 'error', text: `The agent could not start: ${reason}` });
      this.end(this.stopping ? null : reason);
      return;
    }
    this.agent = agent;
    if (this.stopping) {
      await agent.stop();
      return;
    }
    this.subscriptions.add(agent.onExit((exit) => this.onAgentExit(exit)));
    this.setState('ready');
  }

  /** Starts a prompt turn; its end (or failure) arrives as events. */
  prompt(text: string): void {
    const agent = this.agent;
    if (this.info.state === 'prompting') throw new ChatError('chat_busy', 'a prompt turn is already running in this chat; wait for it or cancel it');
    if (this.info.state !== 'ready' || !agent) throw new ChatError('chat_not_ready', `the chat is ${this.info.state}, not ready for a prompt`);
    this.emit({ type: 'message', role: 'user', messageId: `prompt-${randomUUID()}`, text });
    this.setState('prompting');
    agent.prompt(text).then(
      (response) => {
        if (this.info.state === 'prompting') this.setState('ready', response.stopReason);
      },
      (error: unknown) => {
        // An agent that died says so through its exit; only a live agent's refusal is news here.
        if (this.info.state !== 'prompting') return;
        this.emit({ type: 'notice', level: 'error', text: `The prompt failed: ${error instanceof Error ? error.message : String(error)}` });
        this.setState('ready', 'error');
      },
    );
  }

  /** Cancels the running turn: every open question is answered as cancelled, and the agent is sent session/cancel. */
  async cancel(): Promise<void> {
    if (this.info.state !== 'prompting' || !this.agent) return;
    await this.agent.cancel();
  }

  answer(questionId: string, optionId: string | null): void {
    const question = this.questions.get(questionId);
    if (!question) throw new ChatError('no_such_question', `no open question '${questionId}' in this chat (answered already, or cancelled)`);
    if (optionId !== null && !question.optionIds.has(optionId)) {
      throw new ChatError('invalid_option', `'${optionId}' is not one of the question's options (${[...question.optionIds].join(', ')})`);
    }
    question.settle(optionId);
  }

  /** Ends the agent process and its terminals; resolves once they are gone. */
  async close(): Promise<void> {
    this.stopping = true;
    this.stopper.abort();
    await this.agent?.stop();
    this.ownTerminals.endAll();
    this.subscriptions.dispose();
    this.emitter.clear();
  }

  private onUpdate(update: unknown): void {
    for (const report of agentTerminalReports(update)) this.ownTerminals.apply(report);
    for (const event of toChatEvents(update, (terminalId) => this.sessionOf(terminalId))) {
      if (event.type === 'tool') this.edits.track(event);
      this.emit(event);
    }
  }

  /** A terminal id in a tool call's content: one of this chat's ACP terminals (their ids are the PTY sessions'), or one the agent runs itself. */
  private sessionOf(terminalId: string): string | undefined {
    const own = this.ownTerminals.sessionIdOf(terminalId);
    if (own) return own;
    return this.options.service.get(terminalId)?.owner === this.options.owner ? terminalId : undefined;
  }

  private onAgentExit(exit: AgentExit): void {
    this.ownTerminals.endAll();
    if (this.stopping) return this.end(null);
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.exitCode}`;
    const tail = lastWords(exit.stderr, 2000);
    const reason = `The agent '${this.options.agent.name}' ${how}.${tail ? `\n${tail}` : ''}`;
    this.emit({ type: 'notice', level: 'error', text: reason });
    this.end(reason);
  }

  private end(error: string | null): void {
    if (this.info.state === 'ended') return;
    this.info.error = error;
    this.setState('ended');
  }

  private async askPermission(request: RequestPermissionRequest, signal: AbortSignal): Promise<string | null> {
    const { toolCall } = request;
    // ACP's permission request carries a tool call update: the card shows it (and exists) before the question.
    this.onUpdate({ ...toolCall, sessionUpdate: 'tool_call_update' });
    const command = commandOf(toolCall.rawInput);
    // What the card shows as the question is asked is what the developer answers about.
    const shown = this.edits.shownOn(toolCall.toolCallId);
    const optionId = await this.ask(signal, {
      toolCallId: toolCall.toolCallId,
      title: toolCall.title ?? 'The agent asks for permission',
      ...(command ? { detail: command } : {}),
      options: request.options.map((option) => ({ id: option.optionId, name: option.name, kind: optionKind(option.kind) })),
    });
    const chosen = request.options.find((option) => option.optionId === optionId);
    if (chosen && optionAllows(chosen)) this.edits.allow(shown, toolCall.toolCallId);
    return optionId;
  }

  private async askWrite(write: WriteRequest, signal: AbortSignal): Promise<WriteDecision> {
    // Allowed already, in the agent's question about exactly this edit: one write, not another question.
    if (this.edits.take(write)) return 'allow_once';
    const toolCallId = this.edits.cardShowing(write.target);
    const optionId = await this.ask(signal, {
      ...(toolCallId ? { toolCallId } : {}),
      title: `Allow the agent to write ${write.target}?`,
      // Where the name the agent gave leads elsewhere, both are shown: the question is about where it lands.
      detail: write.target === write.path ? write.target : `${write.target} (the agent named ${write.path})`,
      options: WRITE_OPTIONS.map(({ id, name, kind }) => ({ id, name, kind })),
    });
    return WRITE_OPTIONS.find((option) => option.id === optionId)?.decision ?? 'reject';
  }

  /** Emits a question and resolves with the developer's answer; an abort (cancel, the agent withdrew) answers null. */
  private ask(signal: AbortSignal, question: Omit<Extract<ChatEvent, { type: 'question' }>, 'type' | 'questionId'>): Promise<string | null> {
    const questionId = `q-${randomUUID()}`;
    return new Promise((resolve) => {
      const settle = (optionId: string | null) => {
        if (!this.questions.delete(questionId)) return;
        signal.removeEventListener('abort', onAbort);
        this.emit({ type: 'answered', questionId, optionId });
        resolve(optionId);
      };
      const onAbort = () => settle(null);
      this.questions.set(questionId, { optionIds: new Set(question.options.map((option) => option.id)), settle });
      this.emit({ type: 'question', questionId, ...question });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private setState(state: ChatInfo['state'], stopReason?: string): void {
    if (state !== 'prompting') this.edits.endTurn();
    this.info.state = state;
    this.emit({ type: 'state', info: { ...this.info }, ...(stopReason ? { stopReason } : {}) });
  }

  private emit(event: ChatEvent): void {
    this.log.append(event);
    this.emitter.fire(event);
  }
}

type OptionKind = Extract<ChatEvent, { type: 'question' }>['options'][number]['kind'];
const OPTION_KINDS: readonly string[] = QuestionOption.shape.kind.options;

/** A kind from a newer ACP than ours is shown as the cautious one: the developer reads the option's name either way. */
function optionKind(kind: string): OptionKind {
  return OPTION_KINDS.includes(kind) ? (kind as OptionKind) : 'reject_once';
}
