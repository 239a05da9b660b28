// A shield naming the sandbox a session runs under; hovering it lists what the sandbox lets the shell reach.
import { Show } from 'solid-js';
import type { SandboxShield as Shield } from '../sandbox/sandbox-shield.js';

export function SandboxShield(props: { shield: Shield | null; testId?: string }) {
  return (
    <Show when={props.shield}>
      {(shield) => (
        <span
          class="sandbox-shield"
          classList={{ unsandboxed: shield().kind === 'unsandboxed', offline: shield().kind === 'workspace-offline' }}
          data-testid={props.testId ?? 'sandbox-shield'}
          data-profile={shield().kind}
          title={shield().title}
          role="img"
          aria-label={shield().kind === 'unsandboxed' ? 'Not sandboxed' : `Sandbox: ${shield().label}`}
        >
          <svg viewBox="0 0 16 16" aria-hidden="true">
            <path d="M8 1.5l5.5 2v4c0 3.3-2.3 5.8-5.5 7-3.2-1.2-5.5-3.7-5.5-7v-4z" fill="none" stroke="currentColor" stroke-width="1.3" stroke-linejoin="round" />
            <Show when={shield().kind === 'unsandboxed'}>
              <path d="M4 4l8 8" stroke="currentColor" stroke-width="1.3" />
            </Show>
          </svg>
          <span class="sandbox-label">{shield().label}</span>
        </span>
      )}
    </Show>
  );
}
