/**
 * The OpenClaw handshake (conformance/participants/README.md, "openclaw"): the instance's
 * `/api/status` must report a version at least MIN_VERSION and authentication on, or nothing is
 * read from it. Pure functions over the parsed status object.
 */
import { truthy } from '../../core/python-str.js';
import { PyFloat } from '../python-json.js';
import { pyStrip } from '../scrub.js';

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
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
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

/** Why the instance is refused, or undefined when the handshake passes; `version` is what it reported. */
export function handshakeProblem(status: Status): { version?: string; problem?: string } {
  const version = reportedVersion(status);
  if (version === undefined)
    return { problem: '/api/status reports no version (version, openclaw_version or app_version)' };
  const numbers = versionNumbers(version);
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
