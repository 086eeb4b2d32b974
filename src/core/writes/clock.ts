/**
 * The steady clock of writes: the time a version and a manifest's `last_updated` are stamped
 * with. Pure; no file access.
 */

/** How far ahead of the clock an agent's newest stamp may be and still hold its time back. */
export const MAX_CLOCK_STEP_BACK_MS = 24 * 3600 * 1000;

/**
 * The time a write is stamped with (its version's `ts`, the manifest's `last_updated`): the
 * clock, unless one of the agent's earlier stamps is at or ahead of it — the clock went back
 * (an NTP step, a VM resumed, a hand-set clock) — by at most a day; then 1 ms after that
 * stamp, so an agent's times never run backwards. A stamp more than a day ahead of the clock
 * is taken to be the wrong one, and the clock wins: one bad clock cannot pin every later
 * stamp in the future. Version numbers never depend on time.
 */
export function steadyNow(now: Date, earlier: readonly unknown[]): Date {
  const clock = now.getTime();
  let result = clock;
  for (const stamp of earlier) {
    if (typeof stamp !== 'string') continue;
    const time = Date.parse(stamp);
    if (!Number.isFinite(time) || time < result || time - clock > MAX_CLOCK_STEP_BACK_MS) continue;
    result = time + 1;
  }
  return result === clock ? now : new Date(result);
}
