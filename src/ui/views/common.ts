/**
 * What every view of `bourdon ui` shares: the request a view renders from, what it answers,
 * reading its query parameters, and the small pieces of markup several views use (a table's
 * head, an error box, a select's options, the agent picker's ids).
 */
import type { OperationContext } from '../../core/context.js';
import { invoke } from '../../core/operations/invoke.js';
import { listAgentsOperation } from '../../core/operations/read-operations.js';
import type { ErrorCode } from '../../core/errors.js';
import { ACCESS_LEVELS } from '../../core/trust/access.js';
import { html, type SafeHtml } from '../html.js';

export interface ViewRequest {
  ctx: OperationContext;
  params: URLSearchParams;
  now: Date;
  csrf: string;
  auditPath: string;
}

export interface View {
  title: string;
  body: SafeHtml;
  /** When the page shows a failure instead of what was asked: its code, which sets the HTTP status (core/errors.ts). */
  failure?: ErrorCode;
}

/** Most rows one timeline or listing reads (sessions, notes, workstreams): pages of 100, at most this many. */
export const TIMELINE_MAX_ROWS = 1000;

export function param(req: ViewRequest, name: string): string | undefined {
  const value = req.params.get(name);
  return value === null || value.trim() === '' ? undefined : value.trim();
}

export function levelParam(req: ViewRequest): string {
  const level = param(req, 'level');
  return level && (ACCESS_LEVELS as readonly string[]).includes(level) ? level : 'private';
}

/** A table's header row: one column heading per name. */
export function tableHead(...columns: string[]): SafeHtml {
  return html`<thead>
    <tr>
      ${columns.map((column) => html`<th scope="col">${column}</th>`)}
    </tr>
  </thead>`;
}

export function errorBox(message: string): SafeHtml {
  return html`<p class="error" role="alert">${message}</p>`;
}

export function options(values: readonly string[], selected: string | undefined, blank?: string): SafeHtml {
  return html`${blank !== undefined ? html`<option value="">${blank}</option>` : ''}${values.map(
    (value) => html`<option value="${value}" ${value === selected ? html` selected` : ''}>${value}</option>`,
  )}`;
}

/** The Level select every filtered view has, with `level` chosen. */
export function levelSelect(level: string): SafeHtml {
  return html`<label
    >Level
    <select name="level">
      ${options(ACCESS_LEVELS, level)}
    </select></label
  >`;
}

export async function agentIds(ctx: OperationContext): Promise<string[]> {
  return [...(await invoke(listAgentsOperation, ctx, {})).agents].sort();
}
