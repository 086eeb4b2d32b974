/**
 * Hashing: content digests and short names, both from `node:crypto`'s SHA-256, loaded on first
 * use so a command that hashes nothing does not load it.
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

/**
 * A short name for a path or a key (cache folders and buckets, the sync workspace): the first 64
 * bits of its SHA-256, as 16 hex digits. A name, not a secret.
 */
export function nameHash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}
