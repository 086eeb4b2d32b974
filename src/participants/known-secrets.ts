/**
 * The secrets an export was given (openclaw's token, participant.ts `secrets`), removed from
 * whatever the source sent back: an instance may echo its token in a version, a memory or a
 * session, and nothing the runner writes or prints may carry it. Each occurrence becomes
 * `[redacted]`, as a secret value in any text does (core/trust/redaction.ts).
 */
import { REDACTED_VALUE } from '../core/trust/redaction.js';
import { maskTokens } from '../core/trust/token-mask.js';

/** The secrets worth looking for, longest first (one that contains another goes whole). */
export function knownSecrets(values: readonly string[] | undefined): string[] {
  return [...new Set((values ?? []).map((value) => value.trim()).filter((value) => value !== ''))].sort(
    (a, b) => b.length - a.length,
  );
}

/** `text` without any of `secrets`. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED_VALUE);
  return out;
}

/** A message for a person or a log: the known secrets and anything credential-shaped masked (token-mask.ts). */
export function maskedMessage(text: string, secrets: readonly string[]): string {
  return maskTokens(text, { known: secrets });
}

type Container = Record<string, unknown> | unknown[];

/**
 * A copy of a JSON-like value (a manifest) with every string, and every key, rid of `secrets`.
 * Iterative: a manifest's nesting is not bounded here.
 */
export function valueWithoutSecrets<T>(value: T, secrets: readonly string[]): T;
export function valueWithoutSecrets(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const clean = (item: unknown): unknown => (typeof item === 'string' ? withoutSecrets(item, secrets) : item);
  if (value === null || typeof value !== 'object') return clean(value);
  const copyOf = (item: object): Container => (Array.isArray(item) ? [] : {});
  const root = copyOf(value);
  const pending: [object, Container][] = [[value, root]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [source, target] = next;
    for (const [key, item] of Object.entries(source)) {
      let copy: unknown = clean(item);
      if (item !== null && typeof item === 'object') {
        copy = copyOf(item);
        pending.push([item, copy as Container]);
      }
      if (Array.isArray(target)) target[Number(key)] = copy;
      else
        Object.defineProperty(target, withoutSecrets(key, secrets), {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  }
  return root;
}
