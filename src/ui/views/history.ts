/**
 * The History view and the rollback confirmation: the versions of one agent's manifest, what a
 * version changed (explain_memory_change), and Roll back to this… (rollback_agent_memory).
 */
import { invoke } from '../../core/operations/invoke.js';
import { explainMemoryChangeOperation, listMemoryVersionsOperation } from '../../core/operations/write-operations.js';
import { failed, failureCode } from '../../core/payload.js';
import { isValidAgentId } from '../../core/store/ids.js';
import type { CappedVersionView, VersionView } from '../../core/writes/versions.js';
import { html, query, whenTime } from '../html.js';
import { agentIds, errorBox, options, param, tableHead, type View, type ViewRequest } from './common.js';
import { renderDiff } from './diff.js';

/** Under a rollback's op: the version it restored and the reason given (list_memory_versions says them). */
function restoreNote(version: VersionView | CappedVersionView) {
  if (version.op !== 'rollback' || version.restored_version === undefined) return '';
  return html` <span class="detail restore"
    >restored version ${version.restored_version ?? '?'}${version.reason ? html`: “${version.reason}”` : ''}</span
  >`;
}

export async function historyView(req: ViewRequest): Promise<View> {
  const ids = await agentIds(req.ctx);
  const agent = param(req, 'agent');
  const picker = html`<form class="filters" method="get" action="/history" data-autosubmit>
    <label
      >Agent
      <select name="agent">
        ${options(ids, agent, 'choose an agent')}
      </select></label
    >
    <button type="submit">Show</button>
  </form>`;
  if (!agent)
    return {
      title: 'History',
      body: html`<h1>History</h1>
        ${picker}
        <p>Choose an agent to see the versions of its manifest.</p>`,
    };
  const listing = await invoke(listMemoryVersionsOperation, req.ctx, { agent_id: agent, limit: 1000 });
  if (failed(listing))
    return {
      title: 'History',
      body: html`<h1>History</h1>
        ${picker}${errorBox(listing.error)}`,
      failure: failureCode(listing),
    };
  if (listing.versions.length === 0 && !ids.includes(agent))
    return {
      title: 'History',
      body: html`<h1>History</h1>
        ${picker}${errorBox(`no agent ${agent} in this library`)}`,
      failure: 'not_found',
    };
  const versions: readonly (VersionView | CappedVersionView)[] = listing.versions;
  const asked = Number(param(req, 'version'));
  const selected = versions.find((v) => v.version === asked) ?? versions[0];
  const explained = selected
    ? await invoke(explainMemoryChangeOperation, req.ctx, { agent_id: agent, version: selected.version })
    : null;
  const count = (n: number | null) => (n === null ? '?' : n);
  const body = html` <h1>History of ${agent}</h1>
    ${picker}
    ${
      versions.length === 0
        ? html`<p>No recorded versions for ${agent} yet (the first write records them).</p>`
        : html`<div class="scroll">
              <table id="versions" class="stack">
                <caption class="visually-hidden">
                  Versions of ${agent}, newest first
                </caption>
                ${tableHead('Version', 'When', 'Op', 'Actor', 'Entities', 'Sessions', 'Notes', 'SHA-256', 'Actions')}
                <tbody>
                  ${versions.map(
                    (v) =>
                      html`<tr
                        data-version="${v.version}"
                        ${v === selected ? html` class="selected" aria-current="true"` : ''}
                      >
                        <th scope="row" data-label="Version">
                          ${v.version}${v.current ? html` <span class="badge ok">current</span>` : ''}
                        </th>
                        <td data-label="When" class="when">${whenTime(v.ts, req.now)}</td>
                        <td data-label="Op">${v.op}${restoreNote(v)}</td>
                        <td data-label="Actor">${v.actor ?? '-'}</td>
                        <td data-label="Entities" class="num">${count(v.entities)}</td>
                        <td data-label="Sessions" class="num">${count(v.sessions)}</td>
                        <td data-label="Notes" class="num">${count(v.notes)}</td>
                        <td data-label="SHA-256"><code>${(v.sha256 ?? '-').slice(0, 12)}</code></td>
                        <td data-label="Actions" class="actions">
                          <a href="/history${query({ agent, version: v.version })}#change">What changed</a>${
                            v.current
                              ? ''
                              : html` ·
                                  <a href="/history/confirm${query({ agent, version: v.version })}"
                                    >Roll back to this…</a
                                  >`
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${
              explained
                ? html`<section id="change" class="card">
                    <h2>What version ${selected!.version} changed</h2>
                    ${
                      failed(explained)
                        ? errorBox(explained.error)
                        : html`<p class="summary">${explained.summary}</p>
                            ${renderDiff(explained)}`
                    }
                  </section>`
                : ''
            }`
    }`;
  return { title: `History of ${agent}`, body };
}

export async function rollbackConfirmView(req: ViewRequest): Promise<View> {
  const agent = param(req, 'agent') ?? '';
  const version = Number(param(req, 'version'));
  if (!isValidAgentId(agent))
    return { title: 'Rollback', body: errorBox(`not a valid agent id: ${agent}`), failure: 'invalid_input' };
  const listing = await invoke(listMemoryVersionsOperation, req.ctx, { agent_id: agent, limit: 1000 });
  const versions: readonly (VersionView | CappedVersionView)[] = failed(listing) ? [] : listing.versions;
  const target = versions.find((v) => v.version === version);
  if (!target)
    return {
      title: 'Rollback',
      body: html`<h1>Roll back ${agent}</h1>
        ${errorBox(`unknown version ${param(req, 'version') ?? ''} for agent ${agent}`)}`,
      failure: 'not_found',
    };
  const current = versions.find((v) => v.current);
  const against = current && current.version !== target.version ? current.version : null;
  const preview =
    against === null
      ? null
      : await invoke(explainMemoryChangeOperation, req.ctx, { agent_id: agent, version: target.version, against });
  const body = html` <h1>Roll back ${agent} to version ${target.version}</h1>
    <p>
      Version ${target.version}: ${target.op} by ${target.actor ?? '-'}, ${whenTime(target.ts, req.now)},
      ${target.entities ?? '?'} entities, ${target.sessions ?? '?'} sessions, ${target.notes ?? '?'} notes.
    </p>
    ${
      preview && !failed(preview)
        ? html`<h2 class="sub">
              The manifest would go from version ${against} (now) to version ${target.version}'s content
            </h2>
            ${renderDiff(preview)}`
        : ''
    }
    <form method="post" action="/history/rollback" class="confirm">
      <input type="hidden" name="csrf" value="${req.csrf}" />
      <input type="hidden" name="agent" value="${agent}" />
      <input type="hidden" name="version" value="${target.version}" />
      <p>
        <label>Reason (kept in the audit log) <input type="text" name="reason" maxlength="500" autofocus /></label>
      </p>
      <p>
        <strong
          >Restore ${agent} to version ${target.version}? The rollback is recorded as a new version and can itself be
          rolled back.</strong
        >
      </p>
      <button type="submit" class="danger">Yes, roll back</button>
      <a class="button" href="/history${query({ agent })}">Cancel</a>
    </form>`;
  return { title: `Roll back ${agent}`, body };
}
