/**
 * Stopping a long-running command (`serve`, `ui`) on SIGINT, SIGTERM or, for stdio, the end of
 * stdin. The listeners are installed before the server starts: a supervisor (or a test) that
 * stops the server as soon as its startup line appears must find them in place, or the signal's
 * default action kills the process mid-start.
 */
interface Shutdown {
  /** Resolves once a stop was asked for (possibly before the server was even up). */
  readonly requested: Promise<void>;
  /** Waits for the request, then runs `close` once. */
  closeWhenRequested(close: () => Promise<void>): Promise<void>;
}

export function listenForShutdown(options: { stdin?: boolean } = {}): Shutdown {
  const requested = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second signal while closing means "now": exit at once, as a shell expects.
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (options.stdin === false) return;
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
  });
  return {
    requested,
    async closeWhenRequested(close) {
      await requested;
      await close();
    },
  };
}
