// A command or configuration snippet with a copy button, for the overview's set-up instructions.
import { createSignal, onCleanup } from 'solid-js';
import type { AgentSetup } from '../overview/agent-setup.js';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (or an insecure context): the selection fallback still works.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

export function CopySnippet(props: { setup: AgentSetup }) {
  const [state, setState] = createSignal<'idle' | 'copied' | 'failed'>('idle');
  let timer: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(timer));

  async function copy() {
    setState((await copyText(props.setup.snippet)) ? 'copied' : 'failed');
    clearTimeout(timer);
    timer = setTimeout(() => setState('idle'), 1_600);
  }

  return (
    <article class="setup-card" data-testid="connect-snippet" data-agent-kind={props.setup.id}>
      <header>
        <h3>{props.setup.name}</h3>
        <span class="setup-where">{props.setup.where}</span>
      </header>
      <pre class={`snippet lang-${props.setup.language}`}><code>{props.setup.snippet}</code></pre>
      <button
        type="button"
        class="copy-button"
        classList={{ copied: state() === 'copied', failed: state() === 'failed' }}
        aria-label={`Copy ${props.setup.name} configuration`}
        data-testid="copy-snippet"
        onClick={copy}
      >
        {state() === 'copied' ? 'Copied' : state() === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
    </article>
  );
}
