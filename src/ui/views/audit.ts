/**
 * The Audit view: the audit log newest first, filtered by caller, tool and decision (the newest
 * 100 by default), as `bourdon audit` reads it.
 */
import { AUDIT_DECISIONS, queryAudit, type AuditDecision } from '../../core/trust/audit.js';
import { html, when } from '../html.js';
import { errorBox, options, param, tableHead, type View, type ViewRequest } from './common.js';

const AUDIT_DEFAULT_LIMIT = 100;

export async function auditView(req: ViewRequest): Promise<View> {
  const caller = param(req, 'caller');
  const tool = param(req, 'tool');
  const decisionParam = param(req, 'decision');
  const decision = AUDIT_DECISIONS.find((known: AuditDecision) => known === decisionParam);
  const limitParam = Number(param(req, 'limit'));
  const limit = Number.isInteger(limitParam) && limitParam > 0 ? Math.min(limitParam, 10_000) : AUDIT_DEFAULT_LIMIT;
  let records: Awaited<ReturnType<typeof queryAudit>>['records'] = [];
  let matched = 0;
  let error: string | null = null;
  try {
    ({ records, matched } = await queryAudit(req.auditPath, { agent: caller, op: tool, decision, limit }));
  } catch (problem) {
    error = `cannot read the audit log: ${(problem as Error).message}`;
  }
  const newestFirst = [...records].reverse();
  const body = html` <h1>Audit log</h1>
    <form class="filters" method="get" action="/audit" data-autosubmit>
      <label>Caller <input type="text" name="caller" value="${caller ?? ''}" placeholder="any caller" /></label>
      <label>Tool <input type="text" name="tool" value="${tool ?? ''}" placeholder="any tool" /></label>
      <label
        >Decision
        <select name="decision">
          ${options(AUDIT_DECISIONS, decision, 'any')}
        </select></label
      >
      <label>Newest <input type="number" name="limit" min="1" max="10000" value="${limit}" /></label>
      <button type="submit">Show</button>
    </form>
    ${error ? errorBox(error) : ''}
    <p class="summary">
      ${req.auditPath}:
      ${matched === 0 ? 'no records match.' : `newest ${records.length} of ${matched} matching records, newest first.`}
    </p>
    ${
      records.length
        ? html`<div class="scroll">
            <table id="audit" class="stack">
              ${tableHead('Time', 'Caller', 'Tool', 'Namespace', 'Decision', 'Detail')}
              <tbody>
                ${newestFirst.map(
                  (r) =>
                    html`<tr>
                      <td data-label="Time">${when(r.ts, req.now)} <span class="detail">${r.ts}</span></td>
                      <td data-label="Caller">${r.agent}</td>
                      <td data-label="Tool">${r.op}</td>
                      <td data-label="Namespace">${r.namespace}</td>
                      <td data-label="Decision">
                        <span class="badge ${r.decision === 'allow' ? 'ok' : r.decision === 'fail' ? 'warn' : 'bad'}"
                          >${r.decision}</span
                        >
                      </td>
                      <td data-label="Detail">${r.detail ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : ''
    }`;
  return { title: 'Audit log', body };
}
