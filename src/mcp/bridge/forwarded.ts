/**
 * What the bridge passes back from the server: its results without the server's own envelope
 * keys, and its protocol errors re-raised on the bridge's side as the server gave them.
 */
import { ProtocolError } from '@modelcontextprotocol/server';

/** Keys of a forwarded result that describe the server's own transport, not the payload. */
const UPSTREAM_ONLY_KEYS = new Set(['resultType', 'ttlMs', 'cacheScope']);
const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** A forwarded result without the server's own envelope keys; content and isError unchanged. */
export function passThrough<T extends Record<string, unknown>>(result: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (UPSTREAM_ONLY_KEYS.has(key)) continue;
    if (key === '_meta' && value && typeof value === 'object') {
      const meta = { ...(value as Record<string, unknown>) };
      delete meta[SERVER_INFO_META];
      if (Object.keys(meta).length) out._meta = meta;
      continue;
    }
    out[key] = value;
  }
  return out as T;
}

/**
 * Whether the server answered with a JSON-RPC error (the SDK's ProtocolError, or one from
 * another copy of the SDK: same class name, numeric code).
 */
export function isProtocolError(error: unknown): error is { code: number; message: string; data?: unknown } {
  return (
    ProtocolError.isInstance(error) ||
    (error instanceof Error && error.name === 'ProtocolError' && typeof (error as { code?: unknown }).code === 'number')
  );
}

/** The server's protocol error, re-raised on the bridge's side as the server gave it. */
export function relay(error: { code: number; message: string; data?: unknown }): ProtocolError {
  return new ProtocolError(error.code, error.message, error.data);
}
