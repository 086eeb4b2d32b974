/**
 * The codex scrubber: every synthesised text field (key actions, topic and preference names,
 * preference summaries) goes through the engine's native-memory scrubber (`../scrub.ts`, shared
 * with cursor and copilot-cli) with the bound the engine puts on that kind of text. The export
 * runner's redaction runs over the whole manifest afterwards; this is the engine's own pass.
 */
import { scrubNativeText } from '../kit/scrub.js';

/** Bounds the engine puts on each kind of text. */
export const LIMITS = {
  default: 180,
  keyAction: 300,
  topicName: 120,
  preferenceName: 80,
  preferenceSummary: 320,
  memoryFile: 90,
} as const;

/** The engine's `_safe_native_memory_text`: normalised, credential check, links, cut with `...`. */
export function scrub(value: string, limit: number = LIMITS.default): string {
  return scrubNativeText(value, limit);
}
