/**
 * The codex scrubber: every synthesised text field (key actions, topic and preference names,
 * preference summaries) is whitespace-collapsed, replaced whole when it looks like it carries a
 * credential, has its links masked, and is cut to a bound. The export runner's redaction runs
 * over the whole manifest afterwards; this is the engine's own pass, kept for parity.
 */
import { NON_SPACE, PyPattern, codePointLength, codePointPrefix, normalizeText, rstrip } from './text.js';

export const REDACTED_TEXT = '[redacted credential-like text]';

const SENSITIVE = [
  new PyPattern('\\bapi[_-]?key\\b', 'i'),
  new PyPattern('\\bapi[_-]?token\\b', 'i'),
  new PyPattern('\\baccess[_-]?token\\b', 'i'),
  new PyPattern('\\bbearer\\s+token\\b', 'i'),
  new PyPattern('\\bpassword\\b', 'i'),
  new PyPattern('\\bsk_live_[A-Za-z0-9_]+\\b'),
  new PyPattern('\\bhf_[A-Za-z0-9_]{10,}\\b', 'i'),
];
const LINK = new RegExp(`https?://${NON_SPACE}+`, 'gu');

/** Bounds the engine puts on each kind of text. */
export const LIMITS = {
  default: 180,
  keyAction: 300,
  topicName: 120,
  preferenceName: 80,
  preferenceSummary: 320,
  memoryFile: 90,
} as const;

/** True when the text names something credential-like (the whole field is then replaced). */
export function looksSensitive(text: string): boolean {
  return SENSITIVE.some((pattern) => pattern.test(text));
}

/** The engine's `_safe_native_memory_text`: normalised, credential check, links, cut with `...`. */
export function scrub(value: string, limit: number = LIMITS.default): string {
  let text = normalizeText(value);
  if (looksSensitive(text)) return REDACTED_TEXT;
  text = text.replace(LINK, '[link]');
  if (text.length <= limit || codePointLength(text) <= limit) return text;
  return `${rstrip(codePointPrefix(text, limit - 3))}...`;
}
