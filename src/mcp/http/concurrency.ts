/**
 * The bound on one member's concurrent calls: some run, more wait their turn in order, and
 * anything beyond is refused at once (429 with Retry-After), so one member's flood is turned
 * away before it reads bodies or fills the admission queue. Fairness between members is not
 * the bound's work but the admission queue's (round-robin, ./admission.ts) and that of the turn
 * a queued call starts on (below): the bound only has to be generous enough that a host's normal
 * parallel calls never meet it. Counted per caller id
 * (the legacy token and unauthenticated mode share `operator`; docs/http.md says why not per
 * connection). No timers: a waiting call starts on the turn of the event loop after one of the
 * member's running calls ends, or leaves the queue when its request is given up.
 */

export interface MemberConcurrencyLimit {
  /** Calls a member may have running at once. */
  inFlight: number;
  /** Further calls that wait for a running one to end; beyond them, refused. */
  queued: number;
  /** The Retry-After (seconds) a refused call is told. */
  retryAfterSeconds: number;
}

/**
 * Eight running and 56 waiting per member, 64 in all. A host issues parallel tool calls
 * (subagents, several windows, a writer beside readers), all as one member: they must wait
 * their turn, never fail. "Running" calls have their bodies read (at most 8 MiB per member
 * at the 1 MiB body limit); waiting ones are only counted.
 */
export const DEFAULT_MEMBER_CONCURRENCY: MemberConcurrencyLimit = { inFlight: 8, queued: 56, retryAfterSeconds: 1 };

export interface MemberSlot {
  /** Settles when the call may run (at once when a slot was free). */
  ready: Promise<void>;
  /** Ends the call, or takes it out of the queue; idempotent. */
  leave(): void;
}

interface MemberState {
  running: number;
  waiting: (() => void)[];
}

export class MemberConcurrency {
  private readonly members = new Map<string, MemberState>();

  constructor(readonly limit: MemberConcurrencyLimit = DEFAULT_MEMBER_CONCURRENCY) {}

  /** Calls running and waiting for a member now. */
  load(member: string): { running: number; waiting: number } {
    const state = this.members.get(member);
    return { running: state?.running ?? 0, waiting: state?.waiting.length ?? 0 };
  }

  /** A slot for one call of `member`, or null when it has too many running and waiting. */
  enter(member: string): MemberSlot | null {
    let state = this.members.get(member);
    if (!state) this.members.set(member, (state = { running: 0, waiting: [] }));
    const current = state;
    let phase: 'waiting' | 'running' | 'left';
    let start: () => void = () => {};
    let ready: Promise<void>;
    if (current.running < this.limit.inFlight) {
      current.running++;
      phase = 'running';
      ready = Promise.resolve();
    } else if (current.waiting.length < this.limit.queued) {
      phase = 'waiting';
      ready = new Promise<void>((resolve) => {
        start = () => {
          phase = 'running';
          // The call runs on a later turn of the event loop, not in the one that freed its
          // slot: a member's queue would otherwise run call after call in one turn, and every
          // other member's next step (an answer read, a file stat) would wait behind all of them.
          setImmediate(resolve);
        };
      });
      current.waiting.push(start);
    } else {
      if (current.running === 0 && current.waiting.length === 0) this.members.delete(member);
      return null;
    }
    const leave = () => {
      if (phase === 'left') return;
      if (phase === 'waiting') {
        current.waiting.splice(current.waiting.indexOf(start), 1);
      } else {
        current.running--;
        const next = current.waiting.shift();
        if (next) {
          current.running++;
          next();
        }
      }
      phase = 'left';
      if (current.running === 0 && current.waiting.length === 0) this.members.delete(member);
    };
    return { ready, leave };
  }
}

/**
 * Whether the slot became ready (true) or the request was given up first (false). Always
 * yields to the event loop first: a cheap call would otherwise run to its end before the next
 * request is even counted, so a flood of them never looks concurrent and queues every other
 * member's call behind it. After the yield, the requests that arrived together have all been
 * counted (and the excess refused) before any of them runs.
 */
export async function untilReadyOrAborted(ready: Promise<void>, signal: AbortSignal): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return readyOrAborted(ready, signal);
}

/** Whether `ready` settled (true) or the request was given up first (false). */
export function readyOrAborted(ready: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
    void ready.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(!signal.aborted);
    });
  });
}
