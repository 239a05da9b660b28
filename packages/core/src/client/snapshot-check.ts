// The fields of a snapshot that `ptydeck ls`, `status` and `attach` read, checked by hand: the common path, without zod.
import type { PanelServerMessage } from '@ptydeck/contract';

type SnapshotMessage = Extract<PanelServerMessage, { type: 'snapshot' }>;

/**
 * Whether `value` is a snapshot as far as a client reads one: each field
 * that ls, status and attach read (session-list.ts, status.ts, attach.ts)
 * there with its type. Never more lenient than the contract's SnapshotMessage
 * on those fields (snapshot-check.test.ts holds the two together); a value it
 * refuses goes to that schema, which decides. The schema stays the one
 * definition: this only spares a client loading it when the host is right.
 */
export function readsAsSnapshot(value: unknown): value is SnapshotMessage {
  if (!isObject(value) || value.type !== 'snapshot' || typeof value.instance !== 'string') return false;
  if (!Array.isArray(value.sessions) || !value.sessions.every(readsAsSession)) return false;
  if (!Array.isArray(value.agents) || !value.agents.every(readsAsAgent)) return false;
  return value.host === undefined || readsAsHost(value.host);
}

const SOURCES: readonly unknown[] = ['agent', 'user'];
const STATUSES: readonly unknown[] = ['running', 'exited', 'lost'];
const SHELL_STATES: readonly unknown[] = ['idle', 'running'];
const PROMPT_KINDS: readonly unknown[] = ['confirm', 'password', 'pager', 'select', 'repl', 'press_key', 'unknown'];
const PROFILES: readonly unknown[] = ['off', 'workspace', 'workspace-offline'];

/** A session as far as a client reads one; attach-messages.ts checks the sessions of events with it too. */
export function readsAsSession(info: unknown): boolean {
  return (
    isObject(info) &&
    typeof info.id === 'string' &&
    info.id.length >= 1 &&
    info.id.length <= 128 &&
    SOURCES.includes(info.source) &&
    STATUSES.includes(info.status) &&
    nullable(info.owner, isString) &&
    nullable(info.ownerName, isString) &&
    typeof info.title === 'string' &&
    typeof info.command === 'string' &&
    Array.isArray(info.args) &&
    info.args.every(isString) &&
    typeof info.cwd === 'string' &&
    Number.isSafeInteger(info.pid) &&
    inRange(info.cols, 2, 1000) &&
    inRange(info.rows, 1, 500) &&
    nullable(info.exitCode, Number.isSafeInteger) &&
    nullable(info.signal, isString) &&
    isNumber(info.createdAt) &&
    nullable(info.exitedAt, isNumber) &&
    optional(info.readOnly, isBoolean) &&
    optional(info.closeRequested, isBoolean) &&
    optional(info.restored, isBoolean) &&
    optionalNullable(info.attention, (attention) => isObject(attention) && PROMPT_KINDS.includes(attention.kind) && typeof attention.prompt === 'string' && attention.prompt.length <= 1000 && isNumber(attention.since)) &&
    optionalNullable(info.shell, (shell) => isObject(shell) && SHELL_STATES.includes(shell.state) && nullable(shell.lastExitCode, Number.isSafeInteger)) &&
    optionalNullable(info.lost, (lost) => isObject(lost) && isNumber(lost.foundAt) && nullable(lost.unwrittenBytes, (bytes) => Number.isSafeInteger(bytes) && (bytes as number) >= 0)) &&
    optionalNullable(info.ports, (ports) => Array.isArray(ports) && ports.every(readsAsPort)) &&
    optionalNullable(info.sandbox, readsAsSandbox)
  );
}

function readsAsPort(port: unknown): boolean {
  return isObject(port) && inRange(port.port, 0, 65535) && typeof port.address === 'string' && port.address.length <= 64 && Number.isSafeInteger(port.pid) && typeof port.command === 'string' && port.command.length <= 400;
}

function readsAsSandbox(sandbox: unknown): boolean {
  return (
    isObject(sandbox) &&
    PROFILES.includes(sandbox.profile) &&
    Array.isArray(sandbox.writable) &&
    sandbox.writable.every(isString) &&
    Array.isArray(sandbox.hidden) &&
    sandbox.hidden.every(isString) &&
    optionalNullable(sandbox.readOnly, (paths) => Array.isArray(paths) && paths.every(isString)) &&
    optionalNullable(sandbox.readOnlyOmitted, isCount) &&
    optionalNullable(sandbox.hiddenOmitted, isCount) &&
    isBoolean(sandbox.network) &&
    optionalNullable(sandbox.unavailable, isString)
  );
}

function readsAsAgent(agent: unknown): boolean {
  return isObject(agent) && typeof agent.id === 'string' && typeof agent.name === 'string' && nullable(agent.version, isString) && (agent.transport === 'http' || agent.transport === 'stdio') && isNumber(agent.connectedAt);
}

function readsAsHost(host: unknown): boolean {
  return isObject(host) && Number.isSafeInteger(host.pid) && typeof host.version === 'string' && Number.isSafeInteger(host.protocol) && isNumber(host.startedAt) && typeof host.stateDir === 'string';
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isString = (value: unknown): value is string => typeof value === 'string';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const inRange = (value: unknown, min: number, max: number): boolean => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
const nullable = (value: unknown, check: (value: unknown) => boolean): boolean => value === null || check(value);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const optionalNullable = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || value === null || check(value);
