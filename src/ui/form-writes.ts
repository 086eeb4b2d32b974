/**
 * The page's writes — promote or reject an agent's staged writes, roll an agent back — each a
 * form POST (application/x-www-form-urlencoded, at most MAX_FORM_BYTES), each through the same
 * core operation as its CLI command, as the operator. Each answers where it leads (the page the
 * form returns to) and the flash that page shows; a write that was not done carries its code.
 */
import type http from 'node:http';
import type { OperationContext } from '../core/context.js';
import { codeOf, describeError, type ErrorCode } from '../core/errors.js';
import { isValidAgentId } from '../core/store/ids.js';
import { promoteStaged, promotionSummary, rejectStaged } from '../core/writes/staging.js';
import { invoke } from '../core/operations/invoke.js';
import { rollbackAgentMemoryOperation } from '../core/operations/write-operations.js';
import { failed, failureCode } from '../core/payload.js';
import { readCapped } from '../core/fs/read-capped.js';
import { query } from './html.js';
import type { Flash } from './layout.js';

/** Where a form's write leads: its page and the flash; `failure` when it was not done. */
export interface WriteOutcome {
  location: string;
  flash: Flash;
  failure?: ErrorCode;
}

/** What a write runs with: the library as the operator, and the audit log a rejection is recorded in. */
interface WriteRequest {
  ctx: OperationContext;
  auditPath: string;
  agent: string;
  form: URLSearchParams;
}

/** Largest form a write may send: three short fields. */
const MAX_FORM_BYTES = 16 * 1024;

/** The form a POST sent; null when it is not a urlencoded form or is too large. */
export async function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return null;
  }
  const body = await readCapped(req, MAX_FORM_BYTES).catch(() => null);
  return body && new URLSearchParams(body.toString('utf8'));
}

function failure(
  ctx: OperationContext,
  location: string,
  text: string,
  code: ErrorCode = 'invalid_input',
): WriteOutcome {
  if (code === 'internal') ctx.warn(`ui: ${text}`);
  return { location, flash: { kind: 'error', text }, failure: code };
}

/** The digest of the staged files the confirm page showed, which must still match; null when the form lacks one. */
function reviewedDigest(form: URLSearchParams): string | null {
  const digest = form.get('digest') ?? '';
  return /^[0-9a-f]{64}$/.test(digest) ? digest : null;
}

/** Promotes only what the confirm page showed. */
async function promote({ ctx, agent, form }: WriteRequest): Promise<WriteOutcome> {
  const digest = reviewedDigest(form);
  if (digest === null)
    return failure(
      ctx,
      '/staging',
      'this promotion does not say which staged writes were reviewed; nothing was promoted',
    );
  const result = await promoteStaged(ctx, agent, { digest });
  return { location: '/staging', flash: { kind: 'ok', text: promotionSummary(result) } };
}

/** Rejects only what the confirm page listed: writes staged after it are not deleted unread. */
async function reject({ ctx, auditPath, agent, form }: WriteRequest): Promise<WriteOutcome> {
  const digest = reviewedDigest(form);
  if (digest === null)
    return failure(
      ctx,
      '/staging',
      'this rejection does not say which staged writes were reviewed; nothing was rejected',
    );
  const result = await rejectStaged(ctx.store, agent, { auditPath, actor: ctx.caller.agent_id, digest });
  return {
    location: '/staging',
    flash: { kind: 'ok', text: `rejected ${result.rejected} staged write(s) for ${result.agent_id}` },
  };
}

/** Rolls the agent back to the form's version, through the rollback operation. */
async function rollback({ ctx, agent, form }: WriteRequest): Promise<WriteOutcome> {
  const version = Number(form.get('version'));
  const back = `/history${query({ agent })}`;
  if (!Number.isInteger(version) || version < 1)
    return failure(ctx, back, 'the version must be a positive whole number');
  const reason = (form.get('reason') ?? '').trim();
  const payload = await invoke(rollbackAgentMemoryOperation, ctx, { agent_id: agent, version, reason: reason || null });
  if (failed(payload)) return failure(ctx, back, payload.error, failureCode(payload));
  return {
    location: `/history${query({ agent, version: String(payload.version) })}`,
    flash: {
      kind: 'ok',
      text: `restored ${agent} to version ${version}, recorded as version ${String(payload.version)}`,
    },
  };
}

const WRITES: Record<string, (request: WriteRequest) => Promise<WriteOutcome>> = {
  '/staging/promote': promote,
  '/staging/reject': reject,
  '/history/rollback': rollback,
};

/** The write a form posted to `pathname` asks for; a failure is the page it returns to with the message. */
export async function formWrite(
  ctx: OperationContext,
  auditPath: string,
  pathname: string,
  form: URLSearchParams,
): Promise<WriteOutcome> {
  const agent = form.get('agent') ?? '';
  if (!isValidAgentId(agent)) return failure(ctx, '/', `not a valid agent id: ${agent}`);
  const run = Object.hasOwn(WRITES, pathname) ? WRITES[pathname] : undefined;
  if (!run) return failure(ctx, '/', 'unknown action', 'not_found');
  try {
    return await run({ ctx, auditPath, agent, form });
  } catch (error) {
    const back = pathname.startsWith('/history') ? `/history${query({ agent })}` : '/staging';
    return failure(ctx, back, describeError(error), codeOf(error));
  }
}
