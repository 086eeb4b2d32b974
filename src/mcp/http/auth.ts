/**
 * Who a request stands for: the bearer token, checked against the legacy shared token and the
 * member registry; and the limit on failed attempts per remote address. Tokens are never
 * logged, echoed or passed on.
 */
import crypto from 'node:crypto';
import { OPERATOR, type Caller } from '../../core/trust/caller.js';
import { describeError } from '../../core/errors.js';
import { maskSecret } from '../../core/trust/audit.js';
import { isMemberTokenShape } from '../../core/trust/registry.js';

/** What the transport needs from the member registry (FederationRegistry fits). */
export interface MemberAuthenticator {
  authenticate(token: string): Caller | null;
  hasActiveMembers(): boolean;
}

/** The shortest legacy token a network-reachable server accepts (loopback: a warning). */
export const MIN_LEGACY_TOKEN_LENGTH = 32;

/** A bearer token from an Authorization header, or null. The empty bearer is no token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^bearer[ \t]+(.*)$/is.exec(header.trim());
  if (!match) return null;
  const token = match[1]!.trim();
  return token === '' ? null : token;
}

function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text, 'utf8').digest();
}

/** How many digests of tokens that verified are remembered (the oldest forgotten first). */
const MAX_VERIFIED_DIGESTS = 1_000;

/** Resolves bearer tokens: the legacy token (operator) or a registered member. */
export class TokenAuthenticator {
  /** SHA-256 digests (hex) of tokens that verified here, in insertion order; never the tokens. */
  private readonly verified = new Set<string>();

  /**
   * Only the digest is kept here; comparing digests is constant-time whatever the lengths. The
   * token itself is kept only by the audit masker, so a caller passing it as an argument never
   * gets it logged.
   */
  private readonly legacyDigest: Buffer | null;
  /** The legacy token's length (0 when unset), for the bind rules. */
  readonly legacyLength: number;

  constructor(
    legacyToken: string | null | undefined,
    private readonly registry: MemberAuthenticator | null,
    private readonly warn: (message: string) => void,
  ) {
    const trimmed = typeof legacyToken === 'string' ? legacyToken.trim() : '';
    this.legacyDigest = trimmed === '' ? null : sha256(trimmed);
    this.legacyLength = trimmed.length;
    if (trimmed !== '') maskSecret(trimmed);
  }

  get hasLegacy(): boolean {
    return this.legacyDigest !== null;
  }

  hasMembers(): boolean {
    try {
      return this.registry?.hasActiveMembers() ?? false;
    } catch {
      return false;
    }
  }

  /** Whether any token can authenticate right now (members may be added without restart). */
  configured(): boolean {
    return this.hasLegacy || this.hasMembers();
  }

  /** The caller a token stands for, or null. */
  authenticate(token: string): Caller | null {
    // Both checks always run, so timing says nothing about which kind of token matched.
    const legacyMatch = this.legacyDigest !== null && crypto.timingSafeEqual(sha256(token), this.legacyDigest);
    let member: Caller | null = null;
    try {
      member = this.registry?.authenticate(token) ?? null;
    } catch (error) {
      this.warn(`member registry unavailable (${describeError(error)})`);
    }
    const caller = legacyMatch ? OPERATOR : member;
    if (caller) this.remember(token);
    return caller;
  }

  /**
   * Whether checking this token while its address is limited tells a guesser nothing: a
   * member-shaped token (192 random bits, not guessable), or a token that already verified
   * here. Anything else is refused unchecked while the address is limited.
   */
  checkableWhileLimited(token: string): boolean {
    return isMemberTokenShape(token) || this.verified.has(sha256(token).toString('hex'));
  }

  private remember(token: string): void {
    const digest = sha256(token).toString('hex');
    this.verified.delete(digest);
    this.verified.add(digest);
    if (this.verified.size > MAX_VERIFIED_DIGESTS) this.verified.delete(this.verified.values().next().value!);
  }
}

export interface FailedAuthLimit {
  /** Failed attempts an address may make in a burst. */
  burst: number;
  /** Attempts given back per minute, up to `burst`. */
  refillPerMinute: number;
}

/** 30 failures in a burst, then one every 2 s: a client with a wrong token notices long before. */
export const DEFAULT_FAILED_AUTH_LIMIT: FailedAuthLimit = { burst: 30, refillPerMinute: 30 };

/** The most addresses tracked at once; idle (full) buckets go first, then the oldest. */
const MAX_TRACKED_ADDRESSES = 10_000;

/**
 * A token bucket of failed authentications per remote address (IPv6 per /64). An empty bucket
 * refuses, unchecked, every token from that address a guesser could learn something from; a
 * token that cannot be guessed or already verified is still checked and served (see
 * `TokenAuthenticator.checkableWhileLimited`), so others' failures from a shared address (a
 * loopback client, a same-host proxy) never lock a member out.
 */
export class FailedAuthLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly limit: FailedAuthLimit = DEFAULT_FAILED_AUTH_LIMIT,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.refillPerMs = limit.refillPerMinute / 60_000;
  }

  /** How many addresses are remembered now. */
  get tracked(): number {
    return this.buckets.size;
  }

  /** Seconds until this address may try again; 0 when it may now. */
  retryAfter(key: string): number {
    const tokens = this.tokens(key);
    if (tokens >= 1) return 0;
    return Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000));
  }

  /** Counts one failed attempt. */
  fail(key: string): void {
    const tokens = this.tokens(key);
    this.buckets.delete(key); // re-inserted last: the map stays in least-recently-failed order
    this.buckets.set(key, { tokens: Math.max(0, tokens - 1), at: this.now() });
    if (this.buckets.size > MAX_TRACKED_ADDRESSES) this.prune();
  }

  private tokens(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + (this.now() - bucket.at) * this.refillPerMs);
  }

  private prune(): void {
    for (const key of this.buckets.keys()) if (this.tokens(key) >= this.limit.burst) this.buckets.delete(key);
    // Down to 90 %, so a flood of new addresses prunes once per thousand failures, not on each.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= MAX_TRACKED_ADDRESSES * 0.9) break;
      this.buckets.delete(key);
    }
  }
}
