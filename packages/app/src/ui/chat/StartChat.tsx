// The form that starts a chat: an agent, an optional working directory, and how to add an agent.
import { createSignal, For, Show } from 'solid-js';
import { useChat } from '../../chat/chat-context.jsx';
import { useTerminal } from '../../terminal/terminal-context.jsx';

/** What agents.json looks like, for a developer who has none or a broken one. */
const EXAMPLE = `{
  "agents": [
    {
      "name": "gemini",
      "command": "gemini",
      "args": ["--experimental-acp"]
    }
  ]
}`;

/** Pick an agent, optionally a working directory, and start a chat; or learn how to add an agent. */
export function StartChat() {
  const chat = useChat();
  const terminal = useTerminal();
  const catalog = () => chat.state.catalog;
  const [agent, setAgent] = createSignal('');
  const [cwd, setCwd] = createSignal('');
  const chosen = () => {
    const agents = catalog()?.agents ?? [];
    return agents.some((choice) => choice.name === agent()) ? agent() : (agents[0]?.name ?? '');
  };

  function submit(event: SubmitEvent) {
    event.preventDefault();
    if (chosen() !== '') chat.start(chosen(), cwd());
  }

  return (
    <div class="start-chat" data-testid="start-chat">
      <h2 class="chat-heading">Chat with an agent</h2>
      <Show when={catalog()} fallback={<p class="hint">Looking for agents…</p>}>
        {(found) => (
          <>
            <Show when={found().configError}>
              {(error) => (
                <div class="config-error" role="alert" data-testid="agents-config-error">
                  <strong>agents.json could not be used.</strong> {error()}
                  <p>
                    Fix <code>{found().configPath}</code> (it must look like the example below), then press <em>Look again</em>.
                  </p>
                </div>
              )}
            </Show>
            <Show when={found().agents.length === 0 && found().configError === null}>
              <div class="empty" data-testid="agents-empty">
                <p>No agents to start yet. Create <code>{found().configPath}</code> with the agents you use, like this:</p>
              </div>
            </Show>
            {/* The example wherever the file is what stands in the way: missing, or broken. */}
            <Show when={found().agents.length === 0 || found().configError !== null}>
              <pre class="snippet lang-json" data-testid="agents-example">{EXAMPLE}</pre>
              <p class="hint">Known ACP agents found on your PATH are offered here too.</p>
            </Show>
            <Show when={found().agents.length > 0}>
              <form class="start-form" onSubmit={submit}>
                <label class="field">
                  <span>Agent</span>
                  <select data-testid="chat-agent-select" value={chosen()} onChange={(event) => setAgent(event.currentTarget.value)}>
                    <For each={found().agents}>
                      {(choice) => (
                        <option value={choice.name}>
                          {choice.origin === 'path' ? `${choice.name} (found on PATH)` : choice.name}
                        </option>
                      )}
                    </For>
                  </select>
                </label>
                <label class="field">
                  <span>Working directory <small>(optional)</small></span>
                  <input
                    type="text"
                    data-testid="chat-cwd"
                    placeholder="where ptydeck was started"
                    spellcheck={false}
                    value={cwd()}
                    onInput={(event) => setCwd(event.currentTarget.value)}
                  />
                </label>
                <button type="submit" class="button" data-testid="chat-start" disabled={terminal.offline()}
                  title={terminal.offline() ? 'Not connected to ptydeck' : undefined}>Start</button>
              </form>
            </Show>
            <button type="button" class="button small ghost" data-testid="chat-refresh-agents" onClick={() => chat.refreshAgents()}>
              Look again
            </button>
          </>
        )}
      </Show>
      <For each={chat.state.openings}>
        {(opening) => (
          <Show
            when={opening.error}
            fallback={<p class="hint" role="status" data-testid="chat-starting">Starting {opening.agent}…</p>}
          >
            {(error) => (
              <div class="config-error" role="alert" data-testid="chat-start-error">
                <strong>Could not start {opening.agent}.</strong> {error()}
                <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => chat.dismissOpening(opening.requestId)}>✕</button>
              </div>
            )}
          </Show>
        )}
      </For>
    </div>
  );
}
