/**
 * Redaction (spec §7): text that leaves the store through summaries, exports, notes and
 * history must not carry credentials. A credential-like string is replaced whole; anything
 * else is tidied (whitespace, links) and capped.
 */
export const REDACTED = '[redacted credential-like text]';
const DEFAULT_CAP = 180;

/** The engine's patterns (spec §7) that name a kind of secret (`api_key`, `password`). */
const ENGINE_NAMING_PATTERNS: readonly RegExp[] = [
  /\bapi[_-]?key\b/i,
  /\bapi[_-]?token\b/i,
  /\baccess[_-]?token\b/i,
  /\bbearer\s+token\b/i,
  /\bpassword\b/i,
];
/** The engine's patterns (spec §7) that match a secret's value. */
const ENGINE_VALUE_PATTERNS: readonly RegExp[] = [/\bsk_live_\w+/i, /\bhf_\w{10,}/i];

/**
 * This project's additions (spec §7): `\b` never matches after `_`, so `DB_PASSWORD=…` slipped
 * through the engine's patterns. Every pattern is linear on any input: each either checks a
 * fixed-length shape at a position, or may only start where a run of token characters starts
 * (the lookbehind), so the runs it scans never overlap.
 */
const ADDED_PATTERNS: readonly RegExp[] = [
  // Environment-style assignments: OPENAI_API_KEY=…, DB_PASSWORD: …, AWS_SECRET_ACCESS_KEY=…
  /(?<![A-Za-z0-9_])[A-Za-z0-9_]*_(?:key|token|secret|password|passwd|pwd)[ \t]*[=:]/i,
  // Well-known token shapes, checked on a fixed-length prefix.
  // sk-… (OpenAI, sk-proj-…, Anthropic sk-ant-…): 20 token characters, a digit among the first 40.
  /(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]{0,40}[0-9])[A-Za-z0-9_-]{20}/,
  /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20}/,
  /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20}/,
  /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10}/,
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}/,
  /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20}/,
  // JWTs: a base64url header, a dot, a base64url payload that is JSON too.
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ/,
  // Names that end in a secret without the underscore: PGPASSWORD=…, SECRET=…, ClientSecret: …
  /(?<![A-Za-z0-9_])[A-Za-z0-9]*(?:secret|password|passwd|pwd)[ \t]*[=:]/i,
  // PEM private keys (RSA, EC, OPENSSH, ENCRYPTED, …).
  /-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY-----/,
  // An Authorization header quoted in text, and a bearer credential (16 token characters).
  /\bauthorization[ \t]*:[ \t]*(?:bearer|basic|token)\b/i,
  /\bbearer[ \t]+[A-Za-z0-9._~+/-]{16}/i,
  // npm access tokens and Google API keys.
  /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{30}/,
  /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{30}/,
];

const CREDENTIAL_PATTERNS: readonly RegExp[] = [...ENGINE_NAMING_PATTERNS, ...ENGINE_VALUE_PATTERNS, ...ADDED_PATTERNS];

/**
 * The patterns that match a secret's value (a key, a token, a PEM block, a password assigned),
 * not prose that only names one (`rotated the api_key`, `password-protected`): the engine's
 * `sk_live_…` and `hf_…` shapes and every one of ours.
 */
const SECRET_VALUE_PATTERNS: readonly RegExp[] = [...ENGINE_VALUE_PATTERNS, ...ADDED_PATTERNS];

export function looksLikeCredential(text: string): boolean {
  return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(text));
}

/** Whether the text holds a secret's value (as opposed to naming a kind of secret). */
export function holdsSecretValue(text: string): boolean {
  return SECRET_VALUE_PATTERNS.some((pattern) => pattern.test(text));
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
