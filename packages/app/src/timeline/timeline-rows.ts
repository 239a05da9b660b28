// The Timeline view's rows: every session's commands, merged as the core reports them, and the developer's filters.
import { commandFailed, type CommandRecord } from '@ptydeck/contract';
import { shownText } from '../lib/shown-text.js';

export interface TimelineFilter {
  /** 'agent' (any agent), 'developer', 'mixed', an agent's name (actorNameFilter), or null for all. */
  actor: string | null;
  session: string | null;
  /** A remote's name, '' for this machine, or null for every host. */
  host: string | null;
  failedOnly: boolean;
  /** Text to find in the command line, or /a regex/. */
  text: string;
}

export const NO_FILTER: TimelineFilter = { actor: null, session: null, host: null, failedOnly: false, text: '' };

/** The records with `record` in place of the one with its id (or added), in the order commands started. */
export function upsertCommand(records: readonly CommandRecord[], record: CommandRecord): CommandRecord[] {
  const index = records.findIndex((other) => other.id === record.id);
  if (index >= 0) return records.map((other, i) => (i === index ? record : other));
  const next = [...records, record];
  // Nearly always the newest: only sort when it is not.
  const last = records[records.length - 1];
  if (last && order(last, record) > 0) next.sort(order);
  return next;
}

/**
 * The records after one host's snapshot (`host` undefined: this machine's):
 * its records replace that host's, the other hosts' stay, in the order
 * commands started.
 */
export function fromSnapshot(records: readonly CommandRecord[], snapshot: readonly CommandRecord[], host?: string): CommandRecord[] {
  return [...records.filter((record) => record.host !== host), ...snapshot].sort(order);
}

function order(a: CommandRecord, b: CommandRecord): number {
  return a.startedAt - b.startedAt || a.output.start - b.output.start;
}

/**
 * Who a row names: "you", or the agent (its name after the word "agent"), or both. An MCP client chooses
 * its name, so a name alone could be the developer's word: an agent that called itself "you" had rows that
 * read "you", as the developer's do. Every label but the developer's starts with "agent" or "?", which the
 * name comes after, however long or blank-looking it is.
 */
export function actorLabel(record: CommandRecord): string {
  const name = record.actor.name === null ? null : shownText(record.actor.name);
  const agent = name === null ? 'agent' : `agent ${name}`;
  if (record.actor.kind === 'developer') return 'you';
  if (record.actor.kind === 'mixed') return `${agent} + you`;
  return record.actor.kind === 'unknown' && name === null ? '?' : agent;
}

/**
 * Each session's label in the Timeline: its title, and where another listed session has the same title
 * (two agents named alike, each with its "build"), the title and the id's first 8 characters, as `ptydeck ls`
 * and `ptydeck attach` name it; so neither the rows nor the session filter show two alike.
 */
export function sessionLabels(ids: readonly string[], titleOf: (id: string) => string): Map<string, string> {
  const titles = new Map(ids.map((id) => [id, titleOf(id)] as const));
  const uses = new Map<string, number>();
  for (const title of titles.values()) uses.set(lookalike(title), (uses.get(lookalike(title)) ?? 0) + 1);
  const labels = new Map([...titles].map(([id, title]) => [id, uses.get(lookalike(title))! > 1 ? withId(title, id) : title]));
  // A title is the agent's to choose (terminal_create's `title`): one spelled as another session's label with its id
  // ("build · aaaaaaaa") read as that session in the rows and the filter. A label alike to another's gets its own id
  // too, again until none is (its own session's id is the agent's to know, so it may spell that label as well); the
  // ids differ, so labels with them do, and each title gets its id at most once.
  for (let changed = true; changed; ) {
    changed = false;
    const taken = new Map<string, number>();
    for (const label of labels.values()) taken.set(lookalike(label), (taken.get(lookalike(label)) ?? 0) + 1);
    for (const [id, label] of labels) {
      if (taken.get(lookalike(label))! > 1 && label === titles.get(id)) {
        labels.set(id, withId(label, id));
        changed = true;
      }
    }
  }
  return labels;
}

/**
 * What a label looks like, as far as a page draws it: compatibility forms folded (NFKC), the characters drawn as nothing
 * (default-ignorable: a zero-width joiner, a variation selector, the Hangul fillers, a soft hyphen) left out and runs of
 * white space made one. An agent's "build\u200d" or "build\u3164" (which shownText leaves as they are) was drawn as the
 * developer's "build", without the ids that tell two alike apart. Letters of other scripts drawn alike (a Cyrillic "а")
 * are not folded.
 */
function lookalike(label: string): string {
  return label.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '').replace(/\p{White_Space}+/gu, ' ').trim();
}

function withId(title: string, id: string): string {
  return `${title} · ${id.slice(0, 8)}`;
}

/**
 * The actor filter's value for an agent's name: apart from the kinds' values ('developer', 'agent',
 * 'mixed'), so an agent named "developer" is not listed under the developer's filter.
 */
export function actorNameFilter(name: string): string {
  return `name:${name}`;
}

/**
 * The rows a filter keeps. An invalid /regex/ matches nothing (and says so
 * through `textError`), rather than everything.
 */
export function filterCommands(records: readonly CommandRecord[], filter: TimelineFilter): CommandRecord[] {
  const matcher = textMatcher(filter.text);
  return records.filter((record) => {
    if (filter.session !== null && record.session !== filter.session) return false;
    if (filter.host !== null && (record.host ?? '') !== filter.host) return false;
    if (filter.failedOnly && !commandFailed(record)) return false;
    if (filter.actor !== null) {
      const kind = record.actor.kind;
      const fits =
        filter.actor === kind ||
        (filter.actor === 'agent' && (kind === 'agent' || kind === 'unknown') && record.actor.name !== null) ||
        (record.actor.name !== null && filter.actor === actorNameFilter(record.actor.name));
      if (!fits) return false;
    }
    return matcher === null || (matcher !== 'invalid' && matcher(record.command ?? ''));
  });
}

/** Why the filter's text is not a regex, or null. */
export function textError(text: string): string | null {
  return textMatcher(text) === 'invalid' ? 'not a valid regular expression' : null;
}

function textMatcher(text: string): ((line: string) => boolean) | 'invalid' | null {
  if (text === '') return null;
  const regex = /^\/(.*)\/([imsu]*)$/.exec(text);
  if (!regex) {
    const lower = text.toLowerCase();
    return (line) => line.toLowerCase().includes(lower);
  }
  try {
    const compiled = new RegExp(regex[1]!, regex[2]);
    return (line) => compiled.test(line);
  } catch {
    return 'invalid';
  }
}

/** "1.2 s", "340 ms", "3 min": how long a command took. */
export function durationLabel(ms: number | null): string {
  if (ms === null) return 'running';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}
