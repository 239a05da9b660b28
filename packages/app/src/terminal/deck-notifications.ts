/**
 * The panel's desktop notifications: what the deck's changes and chat
 * questions show while the developer is not looking, the developer's choices
 * (kept per origin in localStorage), the browser's permission, and where a
 * click on a notification leads (a session's tab, or a chat). The terminal
 * context keeps the state in its store; this is the logic around it.
 */
import { DisposableStore, Emitter, type ChatEvent } from '@ptydeck/contract';
import type { DeskNotifier, NotifyPermission } from '../attention/desk-notifier.js';
import { planChatQuestion, planNotifications } from '../attention/notification-plan.js';
import { NOTIFICATION_SETTINGS_KEY, parseNotificationSettings, type NotificationSettings } from '../attention/notification-settings.js';
import type { DeckState } from './deck-state.js';

/** The developer's choices as they were last saved. */
export function storedNotificationSettings(): NotificationSettings {
  return parseNotificationSettings(localStorage.getItem(NOTIFICATION_SETTINGS_KEY));
}

export interface DeckNotificationsDeps {
  /** Shows the notifications; disposed with them. */
  notifier: DeskNotifier;
  /** The choices and the permission, as the context's store holds them. */
  settings(): NotificationSettings;
  permission(): NotifyPermission;
  setSettings(settings: NotificationSettings): void;
  setPermission(permission: NotifyPermission): void;
  /** A session's notification was clicked: shows its tab. */
  openSession(id: string): void;
}

/** Desktop notifications for one panel; `dispose` stops listening and disposes the notifier. */
export function createDeckNotifications(deps: DeckNotificationsDeps) {
  const { notifier } = deps;
  const disposables = new DisposableStore();
  /** Prompts already notified or seen (planNotifications' memory). */
  let handledPrompts: ReadonlySet<string> = new Set();
  /** Clicks on a chat's notification: the chat pane brings that chat forward. */
  const chatClicks = new Emitter<string>({ name: 'chat notification click' });

  disposables.add(
    notifier.onClick((target) => {
      window.focus();
      if (target.kind === 'session') deps.openSession(target.id);
      else chatClicks.fire(target.id);
    }),
  );
  // Permission can change in the browser's site settings while the page runs; look again on return.
  const refreshPermission = () => deps.setPermission(notifier.permission());
  window.addEventListener('focus', refreshPermission);
  disposables.add(() => window.removeEventListener('focus', refreshPermission));
  disposables.add(() => notifier.dispose());
  disposables.add(() => chatClicks.clear());

  /** The developer is looking at the panel: its window has focus and is not hidden. */
  function lookedAt(): boolean {
    return document.hasFocus() && document.visibilityState === 'visible';
  }

  function set(change: Partial<NotificationSettings>): void {
    const settings = { ...deps.settings(), ...change };
    deps.setSettings(settings);
    // Per origin, like the panel's height: the choice is the developer's, not the window's.
    localStorage.setItem(NOTIFICATION_SETTINGS_KEY, JSON.stringify(settings));
  }

  return {
    /** The deck's sessions changed: notifies of new prompts and failed exits the developer has not seen. */
    sessionsChanged(previous: DeckState, next: DeckState): void {
      const plan = planNotifications(previous.sessions, next.sessions, {
        focused: lookedAt(),
        settings: deps.settings(),
        handled: handledPrompts,
      });
      handledPrompts = plan.handled;
      for (const notification of plan.show) notifier.show(notification);
    },
    dispose: () => disposables.dispose(),
    /** Desktop notifications: what the developer chose, and whether the browser lets them show. */
    api: {
      settings: deps.settings,
      permission: deps.permission,
      /** From the developer's click only: asks the browser's permission if it was never asked. */
      async enableInput(): Promise<void> {
        set({ input: true });
        const permission = await notifier.requestPermission();
        deps.setPermission(permission);
      },
      set,
      /** An agent asks the developer in a chat: a notification when they are not looking (and want them). */
      chatQuestion(chat: { id: string; agentName: string }, question: Extract<ChatEvent, { type: 'question' }>): void {
        const notification = planChatQuestion(chat, question, { focused: lookedAt(), settings: deps.settings() });
        if (notification) notifier.show(notification);
      },
      /** A chat's notification was clicked (the window is already brought forward). */
      onChatClick: chatClicks.on,
    },
  };
}
