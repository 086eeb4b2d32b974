/** The manifest's `last_updated` as the engine writes it: UTC, seconds, `+00:00`. */
export function exportStamp(now: Date): string {
  return now.toISOString().slice(0, 19) + '+00:00';
}
