// Every chat the host runs: opens them, routes the panel's requests to them and hands their events to every
// panel.
import type { SandboxSettings } from '../sandbox/index.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import { Emitter, reportError, type ChatEvent, type ChatInfo, type ErrorReporter, type McpLaunch, type OnEvent } from '@ptydeck/contract';
import { PtyError, type PtyService } from '../pty/types.js';
import { isExistingDirectory } from '../pty/validate.js';
import { loadAgentChoices, type AgentChoices } from './agent-choices.js';
import { resolveConfigDir } from './agents-config.js';
import { type ChatBindings } from './chat-bindings.js';
import { ChatError, ChatSession, type ChatSessionOptions } from './chat-session.js';
import { endOrphanedChatProcesses } from './orphaned-agents.js';
import { watchAgentsConfig } from './agents-watch.js';
import { CHAT_BINDING_ENV } from '../common/env-names.js';

export interface ChatHostOptions {
  service: PtyService;
  /** Where agents.json is read; default resolveConfigDir(env). */
  configDir?: string;
  /** A chat's cwd when the panel names none: the server's launch directory. Default process.cwd(). */
  launchDir?: string;
  /**
   * Base environment of agent processes (and PATH for finding known agents),
   * or where to read it when a chat opens (the developer's, which a client
   * may teach the host later: server/developer-env.ts). Default process.env.
   */
  env?: Record<string, string | undefined> | (() => Record<string, string | undefined>);
  /**
   * ptydeck's own MCP server, offered to every chat's agent in session/new
   * with a credential binding it to the chat. Without it agents get none.
   */
  mcp?: {
    launch: McpLaunch;
    bindings: ChatBindings;
    /** Added to the MCP server's environment, e.g. PTYDECK_STATE_DIR so it finds this server. */
    env?: Record<string, string>;
  };
  /** Chats open at once, each an agent process; past it one must be closed first. Default 16. */
  maxChats?: number;
  version?: string;
  terminals?: ChatSessionOptions['terminals'];
  /** How chat agents' terminals are fenced (their profile by agent name); without it they run as the developer. */
  sandbox?: SandboxSettings;
  killGraceMs?: number;
  onError?: ErrorReporter;
}

/** Who asked for a chat, handed back with onOpened so the asker can tell its own answer from news. */
export interface ChatOrigin {
  panel: unknown;
  requestId: string;
}

export interface ChatOpened {
  info: ChatInfo;
  origin?: ChatOrigin;
}

const DEFAULT_MAX_CHATS = 16;

interface OpenChat {
  session: ChatSession;
  /** Its MCP server's credential, revoked on close. */
  binding: string | undefined;
  /** Settles once the agent has started or failed to. */
  started: Promise<void>;
  unsubscribe: () => void;
}

/** The name ptydeck's MCP server has in an agent's session. */
export const PTYDECK_MCP_NAME = 'ptydeck';

/**
 * Every chat with an ACP agent the server hosts: opens them (from agents.json
 * or a known agent on PATH), routes the panel's requests to them, and hands
 * their events to whoever listens (every panel). A chat lives here, not in a
 * page, until it is closed or the host is disposed.
 */
export class ChatHost {
  private readonly chats = new Map<string, OpenChat>();
  private readonly opened: Emitter<ChatOpened>;
  private readonly events: Emitter<{ chatId: string; event: ChatEvent }>;
  private readonly closed: Emitter<string>;
  private readonly agentProcesses: Emitter<number>;
  private readonly agentsChanged: Emitter<void>;
  /** Listeners to agentsChanged: agents.json is watched while there are any. */
  private agentsListeners = 0;
  private stopWatchingAgents: (() => void) | undefined;
  /** A chat was opened (its state 'starting'), with the origin its opener passed. */
  readonly onOpened: OnEvent<ChatOpened>;
  /** Something happened in a chat. */
  readonly onEvent: OnEvent<{ chatId: string; event: ChatEvent }>;
  /** A chat was closed and forgotten. */
  readonly onClosed: OnEvent<string>;
  /**
   * A chat's agent process started, with its pid: it and everything it starts
   * are the chat's, semi-trusted as a session's processes are (no panel link).
   */
  readonly onAgentProcess: OnEvent<number>;
  private readonly report: ErrorReporter;
  private readonly env: () => Record<string, string | undefined>;
  private readonly configDir: string;
  private disposed = false;

  constructor(private readonly options: ChatHostOptions) {
    this.report = options.onError ?? reportError;
    const env = options.env ?? process.env;
    this.env = typeof env === 'function' ? env : () => env;
    this.configDir = options.configDir ?? resolveConfigDir(this.env());
    this.opened = new Emitter({ name: 'chat opened', onListenerError: this.report });
    this.events = new Emitter({ name: 'chat event', onListenerError: this.report });
    this.closed = new Emitter({ name: 'chat closed', onListenerError: this.report });
    this.agentProcesses = new Emitter({ name: 'chat agent process', onListenerError: this.report });
    this.agentsChanged = new Emitter({ name: 'agents changed', onListenerError: this.report });
    this.onOpened = this.opened.on;
    this.onEvent = this.events.on;
    this.onClosed = this.closed.on;
    this.onAgentProcess = this.agentProcesses.on;
    this.orphansEnded = this.endOrphans();
  }

  /**
   * Settles once what a dead host's chats left running was ended (or found
   * to survive, which the process watch then lists for the developer to end).
   */
  readonly orphansEnded: Promise<void>;

  /**
   * Ends what the chats of a host of this state directory that died without
   * closing them left running (its agents, when no parent-death signal ended
   * them, and what they started): no host owns them any more. Reports what
   * could not be ended; the panel lists it under "Left running".
   */
  private endOrphans(): Promise<void> {
    return endOrphanedChatProcesses(this.options.service.labels.hostId, this.options.killGraceMs ?? 3000).then(
      (survivors) => {
        if (survivors.length === 0) return;
        const list = survivors.map((proc) => `${proc.pid} (${proc.command})`).join(', ');
        this.report(new Error(`still running: ${list}`), "ending what a previous ptydeck's chats left running failed");
      },
      (error: unknown) => this.report(error, "ending what a previous ptydeck's chats left running failed"),
    );
  }

  /** The agents one can start now (agents.json read afresh, PATH searched). */
  agents(): Promise<AgentChoices> {
    return loadAgentChoices(this.configDir, this.env().PATH);
  }

  /**
   * agents.json changed (created, edited, replaced or removed): agents() says
   * what it holds now. The file is watched only while someone listens.
   */
  onAgentsChanged(listener: () => void): () => void {
    const off = this.agentsChanged.on(listener);
    this.agentsListeners++;
    if (this.agentsListeners === 1 && !this.disposed) {
      this.stopWatchingAgents = watchAgentsConfig(this.configDir, () => this.agentsChanged.fire(), (error) => this.report(error, `watching ${this.configDir} for agents.json failed`));
    }
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      off();
      if (--this.agentsListeners === 0) this.stopAgentsWatch();
    };
  }

  private stopAgentsWatch(): void {
    this.stopWatchingAgents?.();
    this.stopWatchingAgents = undefined;
  }

  /** Every chat with its events so far, for a panel that just connected. */
  list(): { info: ChatInfo; events: ChatEvent[] }[] {
    return [...this.chats.values()].map(({ session }) => ({ info: session.snapshot, events: session.events() }));
  }

  /**
   * Opens a chat with the agent named `agentName` in `cwd` (absolute and
   * existing; default the launch directory). Resolves once the chat exists,
   * in state 'starting': the agent's start and its failure arrive as events.
   */
  async open(agentName: string, cwd?: string, origin?: ChatOrigin): Promise<ChatInfo> {
    if (this.disposed) throw new ChatError('disposed', 'ptydeck is shutting down');
    const dir = checkCwd(cwd ?? this.options.launchDir ?? process.cwd());
    this.checkRoom();
    const choices = await this.agents();
    const agent = choices.agents.find((choice) => choice.name === agentName);
    if (!agent) {
      const known = choices.agents.map((choice) => `'${choice.name}'`).join(', ') || 'none';
      const why = choices.configError ? ` (${choices.configError})` : '';
      throw new ChatError('no_such_agent', `no agent named '${agentName}'; agents: ${known}${why}`);
    }
    if (this.disposed) throw new ChatError('disposed', 'ptydeck is shutting down');
    // Again after the file was read: another open may have taken the last place meanwhile.
    this.checkRoom();
    const owner = `chat-owner-${randomUUID()}`;
    const mcp = this.options.mcp;
    const binding = mcp?.bindings.issue({ owner, agentName: agent.name, cwd: dir });
    const mcpServers: McpServer[] =
      mcp && binding
        ? [
            {
              name: PTYDECK_MCP_NAME,
              command: mcp.launch.command,
              args: mcp.launch.args,
              env: Object.entries({ ...mcp.env, [CHAT_BINDING_ENV]: binding }).map(([name, value]) => ({ name, value })),
            },
          ]
        : [];
    const { origin: _origin, ...config } = agent;
    const session = new ChatSession({
      service: this.options.service,
      agent: config,
      cwd: dir,
      env: this.env(),
      owner,
      mcpServers,
      version: this.options.version,
      terminals: { ...this.options.terminals, ...(this.options.sandbox ? { sandbox: this.options.sandbox } : {}) },
      killGraceMs: this.options.killGraceMs,
      onAgentSpawned: (pid) => {
        if (binding) mcp?.bindings.attachProcess(binding, pid);
        this.agentProcesses.fire(pid);
      },
      onError: this.report,
    });
    const unsubscribe = session.onEvent((event) => this.events.fire({ chatId: session.id, event }));
    const chat: OpenChat = { session, binding, unsubscribe, started: Promise.resolve() };
    this.chats.set(session.id, chat);
    // Announced before it starts, so its first event never reaches a panel that has not heard of it.
    this.opened.fire({ info: session.snapshot, ...(origin ? { origin } : {}) });
    chat.started = session.start().catch((error: unknown) => this.report(error, `starting chat ${session.id} failed`));
    return session.snapshot;
  }

  prompt(chatId: string, text: string): void {
    this.require(chatId).prompt(text);
  }

  cancel(chatId: string): Promise<void> {
    return this.require(chatId).cancel();
  }

  answer(chatId: string, questionId: string, optionId: string | null): void {
    this.require(chatId).answer(questionId, optionId);
  }

  /** Ends the chat's agent and every terminal it still runs, revokes its MCP binding and forgets it. */
  async close(chatId: string): Promise<void> {
    const chat = this.chats.get(chatId);
    if (!chat) throw new ChatError('no_such_chat', `no chat '${chatId}'`);
    this.chats.delete(chatId);
    if (chat.binding) this.options.mcp?.bindings.revoke(chat.binding);
    try {
      // A chat still starting ends its agent as soon as the start settles.
      await Promise.all([chat.session.close(), chat.started]);
      await this.endSessionsOf(chat.session.snapshot.owner);
    } finally {
      chat.unsubscribe();
      this.closed.fire(chatId);
    }
  }

  /**
   * Ends what the chat's agent still runs in the panel: the shells it opened
   * through ptydeck's MCP server outlive their connection otherwise (as an
   * MCP client's orphans do). Their tabs stay, readable, like its ACP terminals.
   */
  private async endSessionsOf(owner: string): Promise<void> {
    const running = this.options.service.list().filter((info) => info.owner === owner && info.status === 'running');
    await Promise.all(
      running.map((info) =>
        this.options.service.kill(info.id).catch((error: unknown) => {
          // Gone meanwhile (removed by the developer, evicted): nothing left to end.
          if (!(error instanceof PtyError && error.code === 'no_such_session')) this.report(error, `ending terminal ${info.id} of a closed chat failed`);
        }),
      ),
    );
  }

  /** Closes every chat: no agent process outlives the host. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.chats.keys()].map((id) => this.close(id).catch((error: unknown) => this.report(error, `closing chat ${id} failed`))));
    this.opened.clear();
    this.events.clear();
    this.closed.clear();
    this.agentProcesses.clear();
    this.agentsChanged.clear();
    this.stopAgentsWatch();
  }

  private checkRoom(): void {
    const max = this.options.maxChats ?? DEFAULT_MAX_CHATS;
    if (this.chats.size >= max) throw new ChatError('chat_limit', `${max} chats are open, each with an agent process; close one first`);
  }

  private require(chatId: string): ChatSession {
    const chat = this.chats.get(chatId);
    if (!chat) throw new ChatError('no_such_chat', `no chat '${chatId}' (closed, or from before ptydeck restarted)`);
    return chat.session;
  }
}

/** A chat's working directory must be absolute and exist: the agent's file paths are relative to nothing else. */
function checkCwd(cwd: string): string {
  if (!path.isAbsolute(cwd)) throw new ChatError('invalid_cwd', `cwd must be an absolute path, got '${cwd}'`);
  if (!isExistingDirectory(cwd)) throw new ChatError('invalid_cwd', `cwd '${cwd}' is not an existing directory`);
  return path.resolve(cwd);
}
