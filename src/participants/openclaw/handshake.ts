/**
 * The OpenClaw handshake (conformance/participants/README.md, "openclaw"): the instance's
 * `/api/status` must report a version at least MIN_VERSION and authentication on, or nothing is
 * read from it. Pure functions over the parsed status object.
 */
import { truthy } from '../../core/python-str.js';
import { redactSecrets } from '../../core/trust/redaction.js';
import { PyFloat } from '../kit/python-json.js';
import { boundText, pyStrip } from '../kit/scrub.js';

/** The first OpenClaw version this export reads (the engine's: 2026.1.29). */
export const MIN_VERSION: readonly number[] = [2026, 1, 29];

type Status = Readonly<Record<string, unknown>>;

/** The version the status reports: the first non-blank string of its version keys, trimmed. */
function reportedVersion(status: Status): string | undefined {
  for (const key of ['version', 'openclaw_version', 'app_version']) {
    const value = status[key];
    if (typeof value === 'string' && pyStrip(value) !== '') return pyStrip(value);
  }
  return undefined;
}

const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * The value of one decimal digit of any script: Unicode's decimal digits come in contiguous runs
 * of ten, 0 to 9, so it is the distance from the start of its run of digits, modulo ten.
 */
function digitValue(digit: string): number {
  const code = digit.codePointAt(0)!;
  let start = code;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return (code - start) % 10;
}

/**
 * A version's numbers: each `.`-separated piece's leading digits (Python's `\d`, any script),
 * stopping at the first piece without any (`2026.1.29-beta` → 2026, 1, 29; `v2026.3` → none).
 */
export function versionNumbers(version: string): number[] {
  const numbers: number[] = [];
  for (const piece of version.split('.')) {
    const digits = /^\p{Nd}+/u.exec(piece)?.[0];
    if (!digits) break;
    numbers.push([...digits].reduce((value, digit) => value * 10 + digitValue(digit), 0));
  }
  return numbers;
}

/** Python's tuple order: element by element, a shorter prefix first. */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x = 0, y = 0] = [a[i], b[i]];
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Whether the status says authentication is on: `auth_enabled`, else `authEnabled` (the first
 * present decides, by Python truthiness), else `auth.enabled` when `auth` is an object; else off.
 */
export function authenticationOn(status: Status): boolean {
  for (const key of ['auth_enabled', 'authEnabled']) if (key in status) return truthy(status[key]);
  const auth = status.auth;
  if (auth !== null && typeof auth === 'object' && !Array.isArray(auth) && !(auth instanceof PyFloat))
    return truthy((auth as Record<string, unknown>).enabled);
  return false;
}

/** Longest version shown in a message or written into `capabilities`, in code points. */
export const MAX_VERSION_CHARS = 64;
/** What is read of a version before it is cleaned: far past anything shown. */
const VERSION_READ_CHARS = 4096;
/** Control and invisible characters (terminal escapes, bidi overrides): a version shows none of them. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * The version as it is shown and written (`capabilities: [openclaw <version>]`): an instance
 * reports any string there, so control and invisible characters become spaces, whitespace is
 * collapsed, secret values are redacted (`[redacted]`) and it is cut at MAX_VERSION_CHARS
 * (ending in `…`). The handshake compares the version as reported.
 */
export function shownVersion(version: string): string {
  const read = version.length > VERSION_READ_CHARS ? version.slice(0, VERSION_READ_CHARS) : version;
  return boundText(redactSecrets(read.replace(UNPRINTABLE, ' ')), MAX_VERSION_CHARS);
}

/**
 * Why the instance is refused, or undefined when the handshake passes; `version` is what it
 * reported, as shownVersion shows it.
 */
export function handshakeProblem(status: Status): { version?: string; problem?: string } {
  const reported = reportedVersion(status);
  if (reported === undefined)
    return { problem: '/api/status reports no version (version, openclaw_version or app_version)' };
  const version = shownVersion(reported);
  const numbers = versionNumbers(reported);
  if (numbers.length === 0)
    return {
      version,
      problem: `/api/status reports version ${JSON.stringify(version)}, which names no release number`,
    };
  if (compareVersions(numbers, MIN_VERSION) < 0)
    return {
      version,
      problem: `OpenClaw ${version} is older than ${MIN_VERSION.join('.')}, the first version this export reads; upgrade the instance to ${MIN_VERSION.join('.')} or later`,
    };
  if (!authenticationOn(status))
    return {
      version,
      problem: 'the instance runs without authentication (auth_enabled is off); turn it on and set OPENCLAW_TOKEN',
    };
  return { version };
}
