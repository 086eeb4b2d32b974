/**
 * A failed call to another server as the MCP adapter reads it: core's one classifier
 * (core/remote-failure.ts) told how the MCP SDK's own errors read — an HTTP status in
 * `SdkHttpError`, its request timeout, its own codes that are no system code — and the one
 * masked line a report shows. The bridge and the peer client word the failure for their readers.
 */
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import { classifyFailure, type LibraryErrors, type RemoteFailure } from '../../core/federation/remote-failure.js';
import { maskTokens } from '../../core/trust/token-mask.js';

/** The MCP SDK's errors, by their classes and codes. */
const SDK_ERRORS: LibraryErrors = {
  isOwn: (link) => SdkError.isInstance(link),
  httpStatus: (link) => (SdkHttpError.isInstance(link) ? link.data.status : null),
  timedOut: (link) => 'code' in link && link.code === SdkErrorCode.RequestTimeout,
};

/** What failed in a call to the server at `url` through the MCP SDK (or fetch). */
export function classifySdkFailure(error: unknown, url: string): RemoteFailure {
  return classifyFailure(error, url, SDK_ERRORS);
}

/** Longest failure a report shows. */
const MAX_REASON_CHARS = 300;

/** A failure's text as it may be shown: one line, every credential masked (the known token too). */
export function maskedReason(error: unknown, token?: string): string {
  const text = typeof error === 'string' ? error : describeError(error);
  return maskTokens(text, { known: [token] }).slice(0, MAX_REASON_CHARS);
}
