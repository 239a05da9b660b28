// The Timeline view: one row per command across every session, filters, a click shows the command's tab.
import { createMemo, For, Show } from 'solid-js';
import { commandDuration, commandFailed } from '@ptydeck/contract';
import { useTerminal } from '../terminal/terminal-context.jsx';
import { actorLabel, actorNameFilter, durationLabel, sessionLabels, textError } from '../timeline/timeline-rows.js';
import { shownText } from '../lib/shown-text.js';
import { useTimeline } from '../timeline/timeline-context.jsx';
import { useReplay } from '../replay/replay-context.jsx';

function exitLabel(record: { status: string; exitCode: number | null; signal: string | null }): string {
  if (record.status === 'running') return '…';
  if (record.status === 'lost') return 'lost';
  if (record.signal) return record.signal;
  return record.exitCode === null ? '?' : String(record.exitCode);
}

export function TimelineToggle() {
  const timeline = useTimeline();
  return (
    <button type="button" class="button ghost" data-testid="toggle-timeline" aria-pressed={timeline.state.open} onClick={() => timeline.toggle()}>
      Timeline
      <Show when={timeline.state.commands.length > 0}>
        <span class="count">{timeline.state.commands.length}</span>
      </Show>
    </button>
  );
}

export function TimelineView() {
  const timeline = useTimeline();
  const terminal = useTerminal();
  const replay = useReplay();
  const actors = () => [...new Set(timeline.state.commands.map((record) => record.actor.name).filter((name): name is string => name !== null))];
  const sessions = () => [...new Set(timeline.state.commands.map((record) => record.session))];
  // A remote's commands are its host's timeline relayed (tagged with its name): the column and filter show once there is one.
  const remoteHosts = () => [...new Set(timeline.state.commands.map((record) => record.host).filter((name): name is string => name !== undefined))];
  // A closed session is in no tab: its records carry the title it had.
  const closedTitles = () => new Map(timeline.state.commands.flatMap((record) => (record.closed ? [[record.session, record.closed.title] as const] : [])));
  const titleOf = (id: string) => shownText(terminal.state.sessions.find((session) => session.id === id)?.title ?? closedTitles().get(id) ?? id.slice(0, 8));
  // Once per change of the records or the tabs, not once per row.
  const labels = createMemo(() => sessionLabels(sessions(), titleOf));
  const labelOf = (id: string) => labels().get(id) ?? titleOf(id);
  return (
    <Show when={timeline.state.open}>
      <section class="timeline" data-testid="timeline" aria-label="Timeline">
        <div class="timeline-filters">
          <select data-testid="timeline-actor" aria-label="Who ran it" onChange={(e) => timeline.setFilter({ actor: e.currentTarget.value || null })}>
            <option value="">Everyone</option>
            <option value="developer">You</option>
            <option value="agent">Agents</option>
            <option value="mixed">Mixed</option>
            <For each={actors()}>{(name) => <option value={actorNameFilter(name)}>{shownText(name)}</option>}</For>
          </select>
          <select data-testid="timeline-session" aria-label="Session" onChange={(e) => timeline.setFilter({ session: e.currentTarget.value || null })}>
            <option value="">All sessions</option>
            <For each={sessions()}>{(id) => <option value={id}>{labelOf(id)}</option>}</For>
          </select>
          <Show when={remoteHosts().length > 0}>
            <select data-testid="timeline-host" aria-label="Host" onChange={(e) => timeline.setFilter({ host: e.currentTarget.value === '*' ? null : e.currentTarget.value })}>
              <option value="*">All hosts</option>
              <option value="">This machine</option>
              <For each={remoteHosts()}>{(name) => <option value={name}>{name}</option>}</For>
            </select>
          </Show>
          <label>
            <input type="checkbox" data-testid="timeline-failed" onChange={(e) => timeline.setFilter({ failedOnly: e.currentTarget.checked })} /> Failed
          </label>
          <input
            type="search"
            data-testid="timeline-text"
            placeholder="Command text or /regex/"
            aria-invalid={textError(timeline.state.filter.text) !== null}
            onInput={(e) => timeline.setFilter({ text: e.currentTarget.value })}
          />
        </div>
        <table class="timeline-table">
          <thead>
            <tr><th>Time</th><th>Who</th><Show when={remoteHosts().length > 0}><th>Host</th></Show><th>Session</th><th>Command</th><th>Took</th><th>Exit</th><th /></tr>
          </thead>
          <tbody>
            <For each={timeline.rows()} fallback={<tr><td colspan="8" class="timeline-empty">No commands yet.</td></tr>}>
              {(record) => (
                <tr
                  data-testid="timeline-row"
                  data-command-id={record.id}
                  data-status={record.status}
                  data-closed={record.closed ? 'true' : undefined}
                  classList={{ failed: commandFailed(record), running: record.status === 'running', closed: record.closed !== undefined }}
                  title={
                    record.closed
                      ? `Its session was closed at ${new Date(record.closed.at).toLocaleTimeString()}; its output went with it` +
                        (record.closed.restored ? '. Kept on disk by an earlier host: anything running as your user could have written it, so it is not proof of what ran' : '')
                      : undefined
                  }
                  onClick={() => record.closed || timeline.jumpTo(record)}
                >
                  <td>{new Date(record.startedAt).toLocaleTimeString()}</td>
                  <td>{actorLabel(record)}</td>
                  <Show when={remoteHosts().length > 0}>
                    <td data-testid="timeline-host-cell">{record.host ?? 'this machine'}</td>
                  </Show>
                  <td data-testid="timeline-session-cell">
                    {labelOf(record.session)}
                    <Show when={record.closed}>
                      {' '}<span class="exit-code closed" data-testid="timeline-closed">closed</span>
                    </Show>
                    <Show when={record.closed?.restored}>
                      {' '}<span class="exit-code closed" data-testid="timeline-restored">from disk</span>
                    </Show>
                  </td>
                  <td class="timeline-command" title={record.cwd === null ? undefined : shownText(record.cwd)}>{record.command === null ? '(not in the shell\'s history)' : shownText(record.command)}</td>
                  <td>{durationLabel(commandDuration(record))}</td>
                  <td class="timeline-exit" data-testid="timeline-exit">{exitLabel(record)}</td>
                  <td>
                    <Show when={!record.closed}>
                      <button type="button" class="icon-button" data-testid="timeline-replay" title="Replay this session" aria-label="Replay"
                        onClick={(e) => { e.stopPropagation(); replay.open(record.session); }}>▶</button>
                      <button type="button" class="icon-button" title="Download this session's recording (asciicast)" aria-label="Export recording"
                        onClick={(e) => { e.stopPropagation(); timeline.exportSession(record.session, 'asciicast-v3'); }}>⤓</button>
                    </Show>
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </section>
    </Show>
  );
}
