/**
 * The one operator's sign-in to `bourdon ui`: the one-time token of the printed link, exchanged
 * once for a session cookie (HttpOnly, SameSite=Strict, scoped to the secret path; Jupyter's
 * pattern), after which the token stops working; the session, which ends after `idleMs` unused;
 * and its CSRF token. Secrets are compared in constant time. A new link (link-channel.ts) replaces
 * the one not yet used; the session it opens replaces the current one.
 */
import crypto from 'node:crypto';
import type { Flash } from './layout.js';

export interface Session {
  id: string;
  csrf: string;
  /** When it was last used (the `now` clock). */
  seen: number;
  flash: Flash | null;
}

/** A session, or why the request is refused (its status and text). */
export type SignInResult = { session: Session } | { refused: { status: number; text: string } };

const secret = () => crypto.randomBytes(32).toString('hex');

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

export class SignIn {
  private linkToken = secret();
  private tokenUsed = false;
  private session: Session | null = null;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number,
  ) {}

  /** The one-time token of the current link. */
  get token(): string {
    return this.linkToken;
  }

  /** A new one-time token, replacing the one not yet used. */
  mint(): string {
    this.linkToken = secret();
    this.tokenUsed = false;
    return this.linkToken;
  }

  /** Exchanges the link's token for a new session: once, then the token is useless. */
  exchange(offered: string): SignInResult {
    if (this.tokenUsed || !sameSecret(offered, this.linkToken)) {
      const text = this.tokenUsed
        ? 'This link was already used. Run `bourdon ui` again for a new one.'
        : 'Wrong token. Open the link `bourdon ui` printed.';
      return { refused: { status: 403, text } };
    }
    this.tokenUsed = true;
    this.session = { id: secret(), csrf: secret(), seen: this.now(), flash: null };
    return { session: this.session };
  }

  /** The session the request's cookie (`cookie`, the session id it carries) names, still in use; marked used now. */
  resume(cookie: string | undefined): SignInResult {
    const current = this.session;
    if (!current || !sameSecret(cookie, current.id))
      return { refused: { status: 401, text: 'Not signed in. Open the link `bourdon ui` printed in your terminal.' } };
    if (this.now() - current.seen > this.idleMs) {
      this.session = null;
      return {
        refused: { status: 401, text: 'This session ended after being idle. Run `bourdon ui` again for a new link.' },
      };
    }
    current.seen = this.now();
    return { session: current };
  }
}
