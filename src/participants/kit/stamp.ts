/**
 * The manifest's `last_updated` as the engine writes it: the export's clock in UTC, whole
 * seconds (Python's `isoformat(timespec="seconds")`), with `+00:00` — or with `Z`, the one
 * participant whose engine exporter stamps so (openclaw, a named form). Also the export's day.
 */

/** How a participant's engine exporter writes the zone: `+00:00` (all but one) or `Z` (openclaw). */
export type StampZone = '+00:00' | 'Z';

/** `now` in UTC, whole seconds: `2026-05-01T12:00:00+00:00` (or `…Z`). */
export function lastUpdated(now: Date, zone: StampZone = '+00:00'): string {
  return now.toISOString().replace(/\.\d{3}Z$/, zone);
}

/** The export's calendar date in UTC (`2026-05-01`). */
export function exportDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}
