/**
 * The Agent view: one agent's entities (paged), its newest sessions and its newest notes, at a
 * level, with links to its history and to the Activity view for everything else. Sessions and
 * notes come through list_recent_work and list_notes, as the Activity view reads them (notes
 * redacted there); entities are the agent's own rows visible at the level, their summaries read
 * as every read surface reads text (trust/redaction.ts readText).
 */
import { invoke } from '../../core/operations/invoke.js';
import { listNotesOperation, listRecentWorkOperation } from '../../core/operations/read-operations.js';
import { agentsInScope } from '../../core/context.js';
import { BourdonError } from '../../core/errors.js';
import { failed } from '../../core/payload.js';
import { canSee } from '../../core/trust/access.js';
import { readNullable } from '../../core/trust/redaction.js';
import type { AccessLevel } from '../../core/store/visibility.js';
import { html, joined, query, when, type SafeHtml } from '../html.js';
import { errorBox, levelParam, levelSelect, param, tableHead, type View, type ViewRequest } from './common.js';

/** Entities one page shows (the rest are on the next pages). */
export const AGENT_ENTITY_PAGE = 50;
/** Newest sessions and newest notes the view shows; the Activity view has the rest. */
export const AGENT_RECENT_ROWS = 50;
/** Every session and note, whatever its day: the view shows the newest, not a window. */
const ALL_DAYS = '1970-01-01';
/** How much of an entity's summary the table shows (notes are cut as list_notes cuts them). */
const SUMMARY_CHARS = 300;

/** A note as the pages show it: its title, its text, then its tags and projects (`@project`). */
export function noteText(note: {
  title?: string | null;
  text: string;
  tags: readonly string[];
  project_focus: readonly string[];
}): SafeHtml {
  const detail = [...note.tags, ...note.project_focus.map((p) => `@${p}`)];
  return html`${note.title ? html`<em>${note.title}:</em> ` : ''}${note.text}${
    detail.length ? html` <span class="detail">${joined(detail)}</span>` : ''
  }`;
}

/** The page's link to one agent (agents list, search, activity). */
export function agentHref(agent: string, level?: string): string {
  return `/agent${query({ agent, level: level === 'private' ? undefined : level })}`;
}

export async function agentView(req: ViewRequest): Promise<View> {
  const agent = param(req, 'agent');
  if (!agent) throw new BourdonError('which agent? Open one from the Agents list', 'invalid_input');
  const record = agentsInScope(req.ctx).find((candidate) => candidate.id === agent);
  if (!record) throw new BourdonError(`no readable agent ${agent} in this library (see Agents)`, 'not_found');
  const level = levelParam(req);
  const visible = record.entities.filter((entity) => canSee(level as AccessLevel, entity.visibility));
  const pages = Math.max(1, Math.ceil(visible.length / AGENT_ENTITY_PAGE));
  const asked = Number(param(req, 'page') ?? '1');
  const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
  const first = (page - 1) * AGENT_ENTITY_PAGE;
  const shown = visible.slice(first, first + AGENT_ENTITY_PAGE);
  const pageHref = (n: number) =>
    `/agent${query({ agent, level: level === 'private' ? undefined : level, page: n === 1 ? undefined : n })}`;

  const recent = await invoke(listRecentWorkOperation, req.ctx, {
    since: ALL_DAYS,
    agent,
    access_level: level,
    limit: AGENT_RECENT_ROWS,
  });
  const notes = await invoke(listNotesOperation, req.ctx, {
    since: ALL_DAYS,
    agent,
    access_level: level,
    limit: AGENT_RECENT_ROWS,
  });
  const sessions = failed(recent) ? [] : recent.sessions;
  const noteRows = failed(notes) ? [] : notes.notes;
  const activity = `/activity${query({ agent, since: ALL_DAYS, level })}`;

  const body = html`<h1>Agent ${agent}</h1>
    <p class="summary">
      ${record.agent.type ?? 'no type'} · ${visible.length} entit${visible.length === 1 ? 'y' : 'ies'} at level ${level}
      · <a href="/history${query({ agent })}">history</a> ·
      <a href="${activity}">all its activity</a>
    </p>
    <form class="filters" method="get" action="/agent" data-autosubmit>
      <input type="hidden" name="agent" value="${agent}" />
      ${levelSelect(level)}
      <button type="submit">Show</button>
    </form>
    ${failed(recent) ? errorBox(recent.error) : ''}${failed(notes) ? errorBox(notes.error) : ''}
    <section aria-labelledby="entities-h">
      <h2 id="entities-h">Entities</h2>
      ${
        visible.length === 0
          ? html`<p>No entities at level ${level}.</p>`
          : html`<p class="hint">
                Entities ${first + 1}–${first + shown.length} of ${visible.length}, in file order (${AGENT_ENTITY_PAGE}
                a page).
              </p>
              <div class="scroll">
                <table id="entities" class="stack">
                  <caption class="visually-hidden">
                    Entities of ${agent}
                  </caption>
                  ${tableHead('Name', 'Type', 'Tags', 'Summary')}
                  <tbody>
                    ${shown.map(
                      (entity) =>
                        html`<tr data-entity="${entity.name}">
                          <th scope="row" data-label="Name">
                            ${entity.name}${
                              entity.aliases.length ? html` <span class="detail">${joined(entity.aliases)}</span>` : ''
                            }${entity.valid_to ? html` <small>(until ${entity.valid_to})</small>` : ''}
                          </th>
                          <td data-label="Type">${entity.type ?? '-'}</td>
                          <td data-label="Tags">${joined(entity.tags)}</td>
                          <td data-label="Summary">${readNullable(entity.summary, SUMMARY_CHARS) ?? ''}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              ${
                pages > 1
                  ? html`<nav class="pager" aria-label="Entity pages">
                      ${page > 1 ? html`<a href="${pageHref(page - 1)}" rel="prev">Previous</a>` : ''} Page ${page} of
                      ${pages} ${page < pages ? html`<a href="${pageHref(page + 1)}" rel="next">Next</a>` : ''}
                    </nav>`
                  : ''
              }`
      }
    </section>
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Recent sessions</h2>
      ${
        sessions.length === 0
          ? html`<p>No sessions at level ${level}.</p>`
          : html`<ul id="sessions" class="timeline-list">
              ${sessions.map(
                (s) =>
                  html`<li class="session">
                    ${when(s.date, req.now)} <span class="focus">${joined(s.project_focus)}</span>${
                      s.key_actions?.length ? html` — ${joined(s.key_actions)}` : ''
                    }${s.cwd ? html` <span class="detail">${s.cwd}</span>` : ''}
                  </li>`,
              )}
            </ul>`
      }
      ${
        !failed(recent) && recent.has_more
          ? html`<p class="hint">The newest ${AGENT_RECENT_ROWS}; <a href="${activity}">the rest in Activity</a>.</p>`
          : ''
      }
    </section>
    <section aria-labelledby="notes-h">
      <h2 id="notes-h">Notes</h2>
      ${
        noteRows.length === 0
          ? html`<p>No notes at level ${level}.</p>`
          : html`<ul id="notes" class="timeline-list">
              ${noteRows.map((n) => html`<li class="note">${when(n.date, req.now)} ${noteText(n)}</li>`)}
            </ul>`
      }
      ${
        !failed(notes) && notes.has_more
          ? html`<p class="hint">The newest ${AGENT_RECENT_ROWS}; <a href="${activity}">the rest in Activity</a>.</p>`
          : ''
      }
    </section>`;
  return { title: `Agent ${agent}`, body };
}
