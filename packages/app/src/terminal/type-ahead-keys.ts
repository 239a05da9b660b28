/**
 * Where keys go while a terminal this window asked for is on its way: held
 * (TypeAhead) from the request until the new shell prints something, or at
 * most TYPE_AHEAD_MAX_MS, then sent once, in order. A capture-phase keydown
 * listener takes command-line keys before xterm.js does, so they reach
 * neither the terminal focused before nor nothing at all.
 */
import type { PanelClient } from '../connection/panel-client.js';
import { matchShortcut } from './shortcuts.js';
import { keyToInput, TypeAhead } from './type-ahead.js';

/** A new shell that prints nothing this long gets what was typed ahead anyway. */
const TYPE_AHEAD_MAX_MS = 2_000;

export class TypeAheadKeys {
  private readonly typeAhead = new TypeAhead();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** A terminal this window asked for that exists but has not taken focus yet (it does on the next frame). */
  private focusing: string | null = null;
  private readonly holdTypedAhead = (event: KeyboardEvent) => this.keydown(event);

  constructor(
    private readonly client: Pick<PanelClient, 'input'>,
    /** Whether the server takes the session's input (running, not display-only). */
    private readonly takesInput: (id: string) => boolean,
  ) {
    window.addEventListener('keydown', this.holdTypedAhead, true);
  }

  /** Starts holding keys for a create request. */
  requested(requestId: string): void {
    this.typeAhead.expect(requestId);
  }

  /** The request became a session: its keys are held for it, at most TYPE_AHEAD_MAX_MS. */
  created(requestId: string, id: string): void {
    this.typeAhead.created(requestId, id);
    if (this.typeAhead.holds(id)) this.timers.set(id, setTimeout(() => this.release(id), TYPE_AHEAD_MAX_MS));
  }

  /** The request failed: what was typed for it goes nowhere. */
  failed(requestId: string): void {
    this.typeAhead.failed(requestId);
  }

  /** Holds input the session's terminal produced before its shell printed anything; false once that time is over. */
  typedInto(id: string, data: string): boolean {
    return this.typeAhead.typedInto(id, data);
  }

  /** The new shell printed something: its line editor is up, so what was typed ahead goes now, once. */
  release(id: string): void {
    if (!this.typeAhead.holds(id)) return;
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    const data = this.typeAhead.release(id);
    if (data !== '' && this.takesInput(id)) this.client.input(id, data);
  }

  /** The terminal asked for exists and takes focus on the next frame: keys typed until then are its. */
  focusingOn(id: string): void {
    this.focusing = id;
  }

  /** The frame on which the terminal asked for takes focus has come: keys reach it through xterm.js from now on. */
  focused(id: string): void {
    if (this.focusing === id) this.focusing = null;
  }

  dispose(): void {
    window.removeEventListener('keydown', this.holdTypedAhead, true);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  // Capture phase, before xterm.js: while a terminal is on its way, command-line keys are held for it
  // instead of reaching the terminal focused before (or nothing at all).
  private keydown(event: KeyboardEvent): void {
    const { typeAhead, focusing } = this;
    if ((!typeAhead.waiting && focusing === null) || event.isComposing || matchShortcut(event) !== null) return;
    const data = keyToInput(event);
    if (data === null) return;
    event.preventDefault();
    event.stopPropagation();
    if (typeAhead.typed(data) || focusing === null) return;
    if (!typeAhead.typedInto(focusing, data) && this.takesInput(focusing)) this.client.input(focusing, data);
  }
}
