// A step that cannot be done in this turn of the loop without holding it: what it needs first, then try it again.

/**
 * Thrown by a step that runs synchronously (a session's creation in the spawn queue) when it needs something
 * read first that could take long (a directory of a shell's, listed whole): `ready` gets it off the loop, and
 * the step is then run again from its start, nothing of the failed run kept but what `ready` gathered.
 */
export class WaitFirst extends Error {
  constructor(readonly ready: () => Promise<void>) {
    super('needs something read first');
    this.name = 'WaitFirst';
  }
}
