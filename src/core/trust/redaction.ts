/**
 * Redaction (spec §7): text that leaves the store through summaries, exports, notes and
 * history must not carry credentials. A credential-like string is replaced whole; anything
 * else is tidied (whitespace, links) and capped.
 */
export const REDACTED = '[redacted credential-like text]';
export const DEFAULT_CAP = 180;

const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /\bapi[_-]?key\b/i,
  /\bapi[_-]?token\b/i,
  /\baccess[_-]?token\b/i,
  /\bbearer\s+token\b/i,
  /\bpassword\b/i,
  /\bsk_live_\w+/i,
  /\bhf_\w{10,}/i,
];

export function looksLikeCredential(text: string): boolean {
  return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(text));
}

export function redactText(value: unknown, cap = DEFAULT_CAP): string {
  if (value === null || value === undefined) return '';
  const collapsed = (typeof value === 'string' ? value : String(value)).trim().replace(/\s+/g, ' ');
  if (looksLikeCredential(collapsed)) return REDACTED;
  const linked = collapsed.replace(/https?:\/\/\S+/g, '[link]');
  // Cut, then drop the spaces the cut left before the ellipsis (as the engine does).
  return linked.length > cap ? linked.slice(0, Math.max(0, cap - 3)).trimEnd() + '...' : linked;
}

/** Redacts a nullable string, keeping null as null (export fields distinguish "absent"). */
export function redactNullable(value: unknown, cap = DEFAULT_CAP): string | null {
  if (value === null || value === undefined) return null;
  return redactText(value, cap);
}

export function redactList(values: readonly unknown[], cap = DEFAULT_CAP): string[] {
  return values.map((value) => redactText(value, cap));
}
