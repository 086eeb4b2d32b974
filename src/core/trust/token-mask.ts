/**
 * The one token mask: every text that may quote a credential (an audit line, a denial's detail,
 * a registry error quoting its file, a peer's or a server's failure, an OpenClaw message) passes
 * through `maskTokens` before it reaches a log, a terminal, a response or a payload. Linear in
 * the text; a bare opaque string is not guessed at (agent ids can be long too).
 */

/** What a masked credential reads as. */
const MASKED = '[masked]';

/** A member token (`bdn_` and hex; issued ones have 48 digits, shorter prefixes are masked too). */
const MEMBER_TOKEN = /bdn_[0-9a-f]{16,}/gi;
/** The credentials of an `Authorization:` header or a `Bearer` scheme, as a header carries them. */
const CREDENTIALS = /\b(authorization:\s*(?:bearer\s+)?|bearer\s+)[^\s"',;)]+/gi;
/** A hex run as long as a token's hash (the registry stores SHA-256 hashes of tokens). */
const HASH_SHAPED = /[0-9a-f]{32,}/gi;

export interface MaskOptions {
  /** Secrets the caller knows (a configured token): masked wherever they appear. Empty ones are skipped. */
  known?: readonly (string | null | undefined)[];
  /** Also mask long hex runs: for texts that can quote the registry's token hashes. */
  hashes?: boolean;
}

/** `text` with every credential in it masked: the known secrets, member tokens, header values. */
export function maskTokens(text: string, options: MaskOptions = {}): string {
  let out = text;
  const known = (options.known ?? []).map((secret) => secret?.trim() ?? '').filter((secret) => secret !== '');
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of known.sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(MASKED);
  }
  out = out
    .replace(MEMBER_TOKEN, `bdn_${MASKED}`)
    .replace(CREDENTIALS, (_match, scheme: string) => `${scheme}${MASKED}`);
  return options.hashes ? out.replace(HASH_SHAPED, MASKED) : out;
}
