/**
 * Fair admission of calls to the handler: at most a few calls are inside the MCP handler at
 * once, and the rest wait their turn, taken round-robin across members (oldest first within a
 * member). Under saturation a call then waits for the calls ahead of it, not for an arbitrary
 * interleaving of every call's steps, so the slowest calls wait about as long as the typical
 * one. It stands behind the per-member bound (./concurrency.ts): a flood is refused there,
 * never queued here.
 *
 * A call awaiting its peers (federation, up to the fan-out's budget) steps aside: it gives its
 * slot back while it waits and takes the next free one, ahead of the queue, when the peers
 * have answered. Local calls never wait behind another server's latency.
 *
 * No timers and no clock: a call is admitted when another leaves or steps aside, and runs from
 * the next turn of the event loop (concurrency.ts says why).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PeerFanout } from '../../core/peers.js';

/** Calls inside the handler at once: enough to overlap one call's file reads with another's CPU. */
const DEFAULT_ADMISSION_SLOTS = 4;

export interface AdmissionTicket {
  /** Settles when the call may run (at once when a slot was free and no one waited). */
  readonly ready: Promise<void>;
  /** Gives the slot back, or leaves the queue; idempotent. */
  leave(): void;
  /**
   * Runs `wait` (a wait on something outside this server) with the slot given back, then
   * takes a slot again ahead of the queue before returning its result.
   */
  stepAside<T>(wait: () => Promise<T>): Promise<T>;
}

interface Waiter {
  member: string;
  admit: () => void;
}

export class FairAdmission {
  private inside = 0;
  /** Waiting calls per member, oldest first; a member is present only while it has one. */
  private readonly queues = new Map<string, Waiter[]>();
  /** Members with waiting calls, in the order they are served next (round-robin). */
  private readonly turn: string[] = [];
  /** Calls back from a peer wait, admitted before any queued call; each says whether it took the slot. */
  private readonly returning: (() => boolean)[] = [];

  constructor(readonly slots: number = DEFAULT_ADMISSION_SLOTS) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`admission slots must be a positive integer`);
  }

  /** Calls inside the handler now, and calls waiting for a slot. */
  load(): { inside: number; waiting: number } {
    let waiting = this.returning.length;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { inside: this.inside, waiting };
  }

  /** A ticket for one call of `member`. */
  enter(member: string): AdmissionTicket {
    let phase: 'waiting' | 'inside' | 'aside' | 'left' = 'waiting';
    let waiter: Waiter | null = null;
    let ready: Promise<void>;
    if (this.inside < this.slots && this.turn.length === 0 && this.returning.length === 0) {
      this.inside++;
      phase = 'inside';
      ready = Promise.resolve();
    } else {
      ready = new Promise<void>((resolve) => {
        waiter = {
          member,
          admit: () => {
            phase = 'inside';
            // Runs on a later turn of the event loop (concurrency.ts says why).
            setImmediate(resolve);
          },
        };
      });
      this.queue(waiter!);
    }

    const leave = (): void => {
      if (phase === 'left') return;
      if (phase === 'waiting' && waiter) this.unqueue(waiter);
      else if (phase === 'inside') this.release();
      // 'aside': the slot was already given back; the pending return finds phase 'left'.
      phase = 'left';
    };

    const stepAside = async <T>(wait: () => Promise<T>): Promise<T> => {
      if (phase !== 'inside') return wait();
      phase = 'aside';
      this.release();
      try {
        return await wait();
      } finally {
        await this.reenter(
          () => phase === 'aside',
          () => (phase = 'inside'),
        );
      }
    };

    return { ready, leave, stepAside };
  }

  private queue(waiter: Waiter): void {
    const queue = this.queues.get(waiter.member);
    if (queue) {
      queue.push(waiter);
      return;
    }
    this.queues.set(waiter.member, [waiter]);
    this.turn.push(waiter.member);
  }

  private unqueue(waiter: Waiter): void {
    const queue = this.queues.get(waiter.member);
    if (!queue) return;
    const at = queue.indexOf(waiter);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) {
      this.queues.delete(waiter.member);
      this.turn.splice(this.turn.indexOf(waiter.member), 1);
    }
  }

  /** Takes a slot again after stepping aside: at once if one is free, else first in line. */
  private reenter(stillAside: () => boolean, admitted: () => void): Promise<void> {
    if (!stillAside()) return Promise.resolve(); // left while aside: nothing to take back
    if (this.inside < this.slots) {
      this.inside++;
      admitted();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) =>
      this.returning.push(() => {
        resolve();
        if (!stillAside()) return false;
        admitted();
        return true;
      }),
    );
  }

  /** A slot is free: the next call in line takes it (returning calls first, then round-robin). */
  private release(): void {
    this.inside--;
    while (this.inside < this.slots) {
      const back = this.returning.shift();
      if (back) {
        if (back()) this.inside++;
        continue;
      }
      const member = this.turn.shift();
      if (member === undefined) return;
      const queue = this.queues.get(member)!;
      const next = queue.shift()!;
      if (queue.length === 0) this.queues.delete(member);
      else this.turn.push(member);
      this.inside++;
      next.admit();
    }
  }
}

const current = new AsyncLocalStorage<AdmissionTicket>();

/** Runs `work` as the call holding `ticket` (its peer waits then step aside). */
export function runAdmitted<T>(ticket: AdmissionTicket, work: () => T): T {
  return current.run(ticket, work);
}

/** Runs `wait` outside the current call's slot, if it holds one (a wait on other servers). */
function awayFromSlot<T>(wait: () => Promise<T>): Promise<T> {
  const ticket = current.getStore();
  return ticket ? ticket.stepAside(wait) : wait();
}

/** The fan-out with every peer call made away from the calling request's slot. */
export function peersAwayFromSlot(peers: PeerFanout): PeerFanout {
  return { names: peers.names, call: (tool, args, options) => awayFromSlot(() => peers.call(tool, args, options)) };
}
