// An agent's message rendered as text nodes only (code and bold, never HTML): its Markdown is untrusted.
import { For, Match, Switch, createMemo } from 'solid-js';
import { messageBlocks } from '../../chat/message-blocks.js';

/** An agent's message: prose with inline code and bold, fenced code as blocks (see message-blocks.ts). Text nodes only. */
export function MessageText(props: { text: string }) {
  const blocks = createMemo(() => messageBlocks(props.text));
  return (
    <div class="message-text">
      <For each={blocks()}>
        {(block) => (
          <Switch>
            <Match when={block.kind === 'code' && block}>
              {(code) => (
                <pre class="message-code" data-lang={code().lang ?? undefined}>
                  <code>{code().code}</code>
                </pre>
              )}
            </Match>
            <Match when={block.kind === 'prose' && block}>
              {(prose) => (
                <p class="message-prose">
                  <For each={prose().spans}>
                    {(span) => (
                      <Switch fallback={span.text}>
                        <Match when={span.kind === 'code'}>
                          <code class="message-inline-code">{span.text}</code>
                        </Match>
                        <Match when={span.kind === 'strong'}>
                          <strong>{span.text}</strong>
                        </Match>
                      </Switch>
                    )}
                  </For>
                </p>
              )}
            </Match>
          </Switch>
        )}
      </For>
    </div>
  );
}
