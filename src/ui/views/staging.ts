/**
 * The Staging view and its confirmation page: each agent's staged writes and what promoting
 * them would change (the promotion preview, as a diff), then Promote… and Reject….
 */
import { isValidAgentId } from '../../core/store/ids.js';
import { listStaged, previewPromotion, type StagedWrite } from '../../core/writes/staging.js';
import { html, query, when, type SafeHtml } from '../html.js';
import { errorBox, param, tableHead, type View, type ViewRequest } from './common.js';
import { renderDiff } from './diff.js';

function stagedTable(items: StagedWrite[], now: Date): SafeHtml {
  return html`<div class="scroll">
    <table class="stack staged">
      ${tableHead('Staged by', 'Entities', 'Sessions', 'Notes', 'When')}
      <tbody>
        ${items.map(
          (item) =>
            html`<tr>
              <th scope="row" data-label="Staged by">${item.caller}</th>
              <td data-label="Entities" class="num">${item.error ? '-' : item.entities}</td>
              <td data-label="Sessions" class="num">${item.error ? '-' : item.sessions}</td>
              <td data-label="Notes" class="num">${item.error ? '-' : item.notes}</td>
              <td data-label="When">
                ${when(item.staged_at, now)}${item.error ? html` <span class="bad">unreadable: ${item.error}</span>` : ''}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function stagedAgents(items: StagedWrite[]): string[] {
  return [...new Set(items.map((item) => item.agent_id))].sort();
}

export async function stagingView(req: ViewRequest): Promise<View> {
  const staged = listStaged(req.ctx.store, req.now);
  const agents = stagedAgents(staged);
  const body = html` <h1>Staging</h1>
    <p class="summary">
      Writes from quarantined members wait here, invisible to every query, until you promote or reject them. Promoting
      merges them into the live manifest as a new version (as <code>bourdon staging promote</code>); rejecting deletes
      them unread.
    </p>
    ${agents.length === 0 ? html`<p>Nothing staged.</p>` : ''}
    ${agents.map((agent) => {
      const preview = previewPromotion(req.ctx, agent);
      return html`<section class="card" id="staged-${agent}" data-agent="${agent}">
        <h2>${agent}</h2>
        ${stagedTable(preview.staged, req.now)}
        <h3 class="sub">What promoting would change in agents/${agent}.l5.yaml</h3>
        ${preview.error ? errorBox(preview.error) : renderDiff(preview.diff!)}
        <p class="actions">
          ${
            preview.error
              ? ''
              : html`<a class="button primary" href="/staging/confirm${query({ action: 'promote', agent })}"
                  >Promote…</a
                >`
          }
          <a class="button danger" href="/staging/confirm${query({ action: 'reject', agent })}">Reject…</a>
        </p>
      </section>`;
    })}`;
  return { title: 'Staging', body };
}

export async function stagingConfirmView(req: ViewRequest): Promise<View> {
  const action = param(req, 'action') === 'reject' ? 'reject' : 'promote';
  const agent = param(req, 'agent') ?? '';
  if (!isValidAgentId(agent))
    return { title: 'Staging', body: errorBox(`not a valid agent id: ${agent}`), failure: 'invalid_input' };
  const preview = previewPromotion(req.ctx, agent);
  const n = preview.staged.length;
  const question =
    action === 'promote'
      ? `Promote ${n} staged write${n === 1 ? '' : 's'} into ${agent}'s live manifest? Each becomes a new version.`
      : `Reject ${n} staged write${n === 1 ? '' : 's'} for ${agent}? They are deleted unread; the live manifest is not touched.`;
  // Promote and reject are bound to what this page shows (the digest of the staged files it
  // read); no promotion is offered over an error.
  const blocked = action === 'promote' && preview.error !== null;
  const body = html` <h1>${action === 'promote' ? 'Promote' : 'Reject'} staged writes for ${agent}</h1>
    ${
      n === 0
        ? errorBox(`no staged writes for agent ${agent}`)
        : html` ${stagedTable(preview.staged, req.now)}
          ${action === 'promote' ? (preview.error ? errorBox(preview.error) : renderDiff(preview.diff!)) : ''}
          ${
            blocked
              ? html`<p>
                  Nothing can be promoted while the preview shows an error. <a class="button" href="/staging">Back</a>
                </p>`
              : html`<form method="post" action="/staging/${action}" class="confirm">
                  <input type="hidden" name="csrf" value="${req.csrf}" />
                  <input type="hidden" name="agent" value="${agent}" />
                  <input type="hidden" name="digest" value="${preview.digest ?? ''}" />
                  <p><strong>${question}</strong></p>
                  <button type="submit" class="${action === 'promote' ? 'primary' : 'danger'}" autofocus>
                    ${action === 'promote' ? 'Yes, promote' : 'Yes, reject'}
                  </button>
                  <a class="button" href="/staging">Cancel</a>
                </form>`
          }`
    }`;
  return { title: `${action} ${agent}`, body };
}
