// A shutdown step that cannot hang: the host's close and a client's both use it.

/** Resolves after `promise` or `ms`, whichever comes first, so a shutdown step cannot hang. */
export function bounded(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(
      () => resolve(),
      () => resolve(),
    ).finally(() => clearTimeout(timer));
  });
}
