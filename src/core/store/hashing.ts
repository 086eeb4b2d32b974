/**
 * Hashing for the CLI's start-up path. Loading `node:crypto` costs a one-shot query more than
 * its lookup (bench/README.md), so modules on that path load it on first use, and
 * names that need no cryptographic strength (cache folder and bucket names, whose every entry
 * is checked against what it claims to be) use a plain 64-bit FNV-1a.
 */
import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';
import { lazy } from '../lazy.js';

const require = createRequire(import.meta.url);

/** `node:crypto`, loaded on first use. */
export const crypto = lazy(() => require('node:crypto') as typeof Crypto);

/** SHA-256 of text or bytes, as hex. */
export function sha256Hex(data: string | Buffer): string {
  return crypto().createHash('sha256').update(data).digest('hex');
}

/** 64-bit FNV-1a of a string's UTF-16 code units, as 16 hex digits: a name, not a secret. */
export function nameHash(text: string): string {
  // The 64-bit state as two 32-bit halves; the prime is 2^40 + 0x1b3, so h × prime is
  // h × 0x1b3 plus the low half shifted into the high one.
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    low = (low ^ text.charCodeAt(i)) >>> 0;
    const lowTimes = low * 0x1b3;
    high = (high * 0x1b3 + Math.floor(lowTimes / 0x100000000) + ((low << 8) >>> 0)) >>> 0;
    low = lowTimes >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
