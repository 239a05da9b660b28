// A file change in a tool card as a line diff, long unchanged runs folded.
import { For, Match, Switch } from 'solid-js';
import { diffHunks, lineDiff } from '../../chat/line-diff.js';

/** A file change in a tool card: removed and added lines with their numbers, long unchanged runs folded. */
export function DiffView(props: { path: string; oldText: string | null; newText: string }) {
  const hunks = () => diffHunks(lineDiff(props.oldText, props.newText));
  return (
    <figure class="diff" data-testid="tool-diff" aria-label={`${props.oldText === null ? 'New file' : 'Changes to'} ${props.path}`}>
      <figcaption class="diff-path">
        {props.path}
        {props.oldText === null ? <span class="diff-new">new file</span> : null}
      </figcaption>
      <div class="diff-body">
        <For each={hunks()}>
          {(hunk) => (
            <Switch>
              <Match when={hunk.kind === 'skipped' && hunk}>
                {(skipped) => <div class="diff-skip">⋯ {skipped().count} unchanged line{skipped().count === 1 ? '' : 's'}</div>}
              </Match>
              <Match when={hunk.kind === 'lines' && hunk}>
                {(lines) => (
                  <For each={lines().lines}>
                    {(line) => (
                      <div class={`diff-line ${line.kind}`}>
                        <span class="diff-number" aria-hidden="true">{line.oldLine ?? ''}</span>
                        <span class="diff-number" aria-hidden="true">{line.newLine ?? ''}</span>
                        <span class="diff-sign" aria-hidden="true">{line.kind === 'add' ? '+' : line.kind === 'remove' ? '−' : ' '}</span>
                        <Switch fallback={<span class="diff-text">{line.text}</span>}>
                          <Match when={line.kind === 'add'}><ins class="diff-text">{line.text}</ins></Match>
                          <Match when={line.kind === 'remove'}><del class="diff-text">{line.text}</del></Match>
                        </Switch>
                      </div>
                    )}
                  </For>
                )}
              </Match>
            </Switch>
          )}
        </For>
      </div>
    </figure>
  );
}
