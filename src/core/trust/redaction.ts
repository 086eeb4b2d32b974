/**
 * Redaction, the one place for it. One rule set (secret-rules.ts), one rule for what people and
 * models read:
 *
 * - Secret VALUES are replaced by `[redacted]` where they stand; the prose around them, and
 *   prose that only names a credential ("rotated the staging api_key"), is kept. The boundaries
 *   where text leaves a source apply it (`redactSecrets`, `redactSecretsIn`: a participant's
 *   manifest, a commit, a peer's answer), and so does every read surface of this project's own
 *   (`readText`: notes, workstreams, history diffs, a rollback's reason), so the same
 *   row reads the same in `find`, `summary`, `workstreams` and `list-notes`.
 * - The engine's spec §7 (`redactText`: a text that names or holds a credential replaced whole)
 *   is kept only where the engine's payload is the contract: `export_agents`,
 *   `prepare_recognition_context`'s context block (parity), and a sync push (what leaves the machine).
 */
import { ASSIGNMENT, kubernetesSecretValues, rulesFor } from './secret-rules.js';

export const REDACTED = '[redacted credential-like text]';
/** What replaces a secret value inside a text kept otherwise. */
export const REDACTED_VALUE = '[redacted]';
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

/** Spec §7's test: the text names or holds a credential (reads replace it whole). */
export function looksLikeCredential(text: string): boolean {
  return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(text)) || containsSecret(text);
}

/** A secret value's place in a text: [start, end) in UTF-16 units. */
export type SecretSpan = readonly [number, number];

/** Words of a name: `AWS_SECRET_ACCESS_KEY`, `clientSecret`, `client-key-data` → lower-case words. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** A word that makes any value assigned to it secret: password, passwd, pwd, passphrase, secret. */
const STRONG_WORD = /(?:password|passwd|passphrase|pwd|secret)$/;
/** Words that make a token-looking value secret. */
const TOKEN_WORDS = new Set([
  'token',
  'key',
  'auth',
  'credential',
  'credentials',
  'sig',
  'signature',
  'apikey',
  'accesskey',
  'accountkey',
  'privatekey',
  'clientkey',
  'secretkey',
  'masterkey',
  'signingkey',
  'encryptionkey',
]);
/** A last word that says the value is about the credential, not the credential (TOKEN_ID, key_file, MAX_TOKENS). */
const ABOUT_WORDS = new Set(
  (
    'id ids name names file files path paths url uri type types count counts limit limits max min size length len ' +
    'ttl expiry expires expired expiration env var header field prefix tokens keys hint format rotation policy usage ' +
    'budget store manager encoding algorithm alg scope scopes endpoint location dir provider source required ref'
  ).split(' '),
);
/** Unquoted words after `password:` that are prose, not a password ("the password: see the vault"). */
const PROSE_WORDS = new Set(
  (
    'the a an is are was were be see use in on at to of for via from with and or not no stored kept set required ' +
    'optional changed reset rotated expired missing here there below above same unknown field value prompt entry setting option'
  ).split(' '),
);
/** Values that stand for a secret without being one: `${VAR}`, `$VAR`, `<your key>`, `{{ x }}`, `***`. */
const PLACEHOLDER = /^(?:[$%<]|\{\{|\*{3,}|\.{3}|\[redacted|x{5,}$|(?:null|none|nil|true|false|undefined|yes|no)$)/i;

type NameClass = 'strong' | 'token' | null;

function classifyName(name: string): NameClass {
  const words = nameWords(name);
  // A public key, and a name about the credential (TOKEN_ID, key_file), hold no secret.
  const last = words.at(-1);
  if (last === undefined || ABOUT_WORDS.has(last) || words.includes('public')) return null;
  if (words.some((word) => STRONG_WORD.test(word))) return 'strong';
  if (words.some((word) => TOKEN_WORDS.has(word) || word.endsWith('token') || word.endsWith('apikey'))) return 'token';
  return null;
}

/**
 * A value that looks like a token rather than a word: no spaces, 8+ characters, not plain words
 * (`deploy`, `ClearTextPassword`) or a number.
 */
function looksLikeToken(value: string): boolean {
  return (
    value.length >= 8 &&
    /^[A-Za-z0-9+/=_.~:-]+$/.test(value) &&
    !(/^[A-Za-z]+$/.test(value) && !/[A-Z]{2}/.test(value)) &&
    !/^[0-9.]+$/.test(value)
  );
}

/** Whether an assignment's value is a secret, by its name's class, its operator and its look. */
function secretAssignment(name: string, sep: string, value: string, quoted: boolean): boolean {
  const kind = classifyName(name);
  if (!kind || PLACEHOLDER.test(value)) return false;
  if (kind === 'strong') return quoted || !PROSE_WORDS.has(value.toLowerCase());
  // An environment-style assignment (OPENAI_API_KEY=…) holds a value, whatever it looks like.
  if (sep === '=' && /^[A-Z0-9_]+$/.test(name) && value.length >= 4 && !/^[0-9.]+$/.test(value)) return true;
  return looksLikeToken(value);
}

/** Where the secret values of `text` are, sorted, overlapping ones merged. */
function findSecrets(text: string): SecretSpan[] {
  const spans: [number, number][] = [];
  const lower = text.toLowerCase();
  for (const rule of rulesFor(lower)) {
    for (const match of text.matchAll(rule.pattern)) {
      if (rule.accept && !rule.accept(match)) continue;
      const span = match.indices?.groups?.value ?? match.indices?.[0];
      if (span && span[1] > span[0]) spans.push([span[0], span[1]]);
    }
  }
  if (lower.includes('secret')) spans.push(...kubernetesSecretValues(text));
  if (text.includes('=') || text.includes(':')) {
    const assignment = new RegExp(ASSIGNMENT.source, ASSIGNMENT.flags);
    for (let match = assignment.exec(text); match; match = assignment.exec(text)) {
      const groups = match.groups!;
      const which = groups.dq !== undefined ? 'dq' : groups.sq !== undefined ? 'sq' : 'bare';
      const span = match.indices!.groups![which]!;
      if (secretAssignment(groups.name!, groups.sep!, groups[which]!, which !== 'bare')) spans.push([span[0], span[1]]);
      // Go on right after the operator: a rejected value may hold an assignment of its own.
      else assignment.lastIndex = match.indices!.groups!.sep![1];
    }
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push(span);
  }
  return merged;
}

/** Whether `text` holds a secret value (a key, a token, a private key, a password in an assignment or a URL). */
export function containsSecret(text: string): boolean {
  return findSecrets(text).length > 0;
}

/** `text` with each secret value replaced by `[redacted]`, everything else as it was. */
export function redactSecrets(text: string): string {
  const spans = findSecrets(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start) + REDACTED_VALUE;
    at = end;
  }
  return out + text.slice(at);
}

type Container = Record<string, unknown> | unknown[];

function emptyLike(value: object): Container {
  return Array.isArray(value) ? [] : {};
}

function put(target: Container, key: string, value: unknown): void {
  if (Array.isArray(target)) target[Number(key)] = value;
  else target[key] = value;
}

/**
 * A copy of a JSON-like value with every string's secret values redacted (keys are kept).
 * Iterative, not recursive: a commit or a peer's answer may be nested deeper than the stack
 * (the commit's depth check comes after, and refuses it in one line).
 */
export function redactSecretsIn<T>(value: T): T;
export function redactSecretsIn(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  const root = emptyLike(value);
  const pending: [object, Container][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, target] = next;
    for (const [key, item] of Object.entries(source)) {
      if (typeof item === 'string') put(target, key, redactSecrets(item));
      else if (item !== null && typeof item === 'object') {
        const copy = emptyLike(item);
        put(target, key, copy);
        pending.push([item, copy]);
      } else put(target, key, item);
    }
  }
  return root;
}

/**
 * Text a read surface shows (the one rule: secret values redacted, prose kept): whitespace
 * collapsed, each secret value `[redacted]`, links `[link]`, cut at `cap` as redactText cuts.
 */
export function readText(value: unknown, cap = DEFAULT_CAP): string {
  if (value === null || value === undefined) return '';
  const collapsed = (typeof value === 'string' ? value : String(value)).trim().replace(/\s+/g, ' ');
  const linked = redactSecrets(collapsed).replace(/https?:\/\/\S+/g, '[link]');
  return linked.length > cap ? linked.slice(0, Math.max(0, cap - 3)).trimEnd() + '...' : linked;
}

/** readText of a nullable string, keeping null as null. */
export function readNullable(value: unknown, cap = DEFAULT_CAP): string | null {
  return value === null || value === undefined ? null : readText(value, cap);
}

/** The engine's read redaction (spec §7): a text that names or holds a credential is replaced whole. */
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
