// Decides which desktop notifications a change of sessions or chats calls for; pure, so every rule is unit-
// tested.
import type { ChatEvent, SessionInfo } from '@ptydeck/contract';
import { waitingFor } from '../terminal/deck-reducer.js';
import { endedBadly, exitLabel } from '../terminal/tab-label.js';
import type { NotificationSettings } from './notification-settings.js';
import type { NotifyTarget } from './notify-target.js';

/** A desktop notification to show; clicking it brings `target` to the front. */
export interface DeskNotification {
  /** One per prompt (`input:<session>:<since>`), per failed exit (`exit:<session>`), per chat question (`question:<chat>:<id>`). */
  key: string;
  target: NotifyTarget;
  title: string;
  body: string;
}

export interface NotificationContext {
  /** The developer is looking at the panel: the window has focus and is visible. */
  focused: boolean;
  settings: NotificationSettings;
  /** Prompts already notified or already seen, from the previous plan. */
  handled: ReadonlySet<string>;
}

export interface NotificationPlan {
  show: DeskNotification[];
  /** The prompts handled so far that still wait; hand it back as `handled` next time. */
  handled: ReadonlySet<string>;
}

/**
 * Which desktop notifications a change of sessions calls for. Pure: the panel
 * calls it on every change with the sessions before and after.
 *
 * - One notification per prompt (session and `since`): a prompt is handled once,
 *   when it first appears. While the developer is looking (focused) it counts as
 *   seen, as it does with notifications off, so neither a later blur nor turning
 *   them on brings up an old prompt. A repeated update of the same prompt (a
 *   resize, a reconnect's snapshot) is the same prompt.
 * - An agent's session that ends badly (non-zero exit, a signal nobody asked
 *   for) notifies once, at the transition from running, if `failures` is on.
 */
export function planNotifications(
  previous: readonly SessionInfo[],
  next: readonly SessionInfo[],
  context: NotificationContext,
): NotificationPlan {
  const show: DeskNotification[] = [];
  const handled = new Set<string>();
  const quiet = context.focused;
  const before = new Map(previous.map((session) => [session.id, session]));
  for (const session of next) {
    const attention = waitingFor(session);
    if (attention !== null) {
      const key = `input:${session.id}:${attention.since}`;
      handled.add(key);
      if (!context.handled.has(key) && !quiet && context.settings.input) {
        show.push({ key, target: { kind: 'session', id: session.id }, title: `${agentName(session)} needs input`, body: `${session.title}: ${promptText(attention.prompt)}` });
      }
    }
    if (
      context.settings.failures &&
      !quiet &&
      session.source === 'agent' &&
      session.status === 'exited' &&
      endedBadly(session) &&
      before.get(session.id)?.status === 'running'
    ) {
      show.push({
        key: `exit:${session.id}`,
        target: { kind: 'session', id: session.id },
        title: `${agentName(session)}'s shell failed`,
        body: `${session.title}: ${exitLabel(session)}`,
      });
    }
  }
  return { show, handled };
}

type QuestionEvent = Extract<ChatEvent, { type: 'question' }>;

/**
 * Whether a question an agent asks in a chat calls for a notification: only
 * while the developer is not looking and wants to hear when an agent needs
 * input (the same setting as a shell's prompt). Each question is asked once,
 * so it needs no memory of its own; a reload's replay of the chats is not
 * asking again and never comes through here.
 */
export function planChatQuestion(
  chat: { id: string; agentName: string },
  question: QuestionEvent,
  context: Pick<NotificationContext, 'focused' | 'settings'>,
): DeskNotification | null {
  if (context.focused || !context.settings.input) return null;
  return {
    key: `question:${chat.id}:${question.questionId}`,
    target: { kind: 'chat', id: chat.id },
    title: `${chat.agentName} asks`,
    body: question.detail ? `${question.title}: ${promptText(question.detail)}` : question.title,
  };
}

function agentName(session: SessionInfo): string {
  return session.source === 'agent' ? (session.ownerName ?? 'An agent') : 'Your terminal';
}

/** The prompt as one short line: it came from a program's output. */
function promptText(prompt: string): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line === '' ? 'waiting for input' : line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
