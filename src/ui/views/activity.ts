/**
 * The Activity view: sessions and notes since a day, grouped by day, newest first, with the
 * chart; filters by agent, project and level. Reads list_recent_work and list_notes page by page.
 */
import { followPages } from '../../core/operations/follow-pages.js';
import { invoke } from '../../core/operations/invoke.js';
import { MAX_PAGE_SIZE } from '../../core/operations/inputs.js';
import { listNotesOperation, listRecentWorkOperation } from '../../core/operations/read-operations.js';
import { localDay } from '../../core/store/dates.js';
import { failed } from '../../core/payload.js';
import { foldKey } from '../../core/store/manifest.js';
import { html, joined, when } from '../html.js';
import { agentHref, noteText } from './agent.js';
import { chart, type DayActivity } from './chart.js';
import {
  agentIds,
  errorBox,
  levelParam,
  options,
  param,
  TIMELINE_MAX_ROWS,
  type View,
  type ViewRequest,
  levelSelect,
} from './common.js';

export async function activityView(req: ViewRequest): Promise<View> {
  const since = param(req, 'since') ?? localDay(new Date(req.now.getTime() - 14 * 86_400_000));
  const agent = param(req, 'agent');
  const project = param(req, 'project');
  const level = levelParam(req);
  const ids = await agentIds(req.ctx);
  const sessionPages = await followPages(
    'sessions',
    (cursor) =>
      invoke(listRecentWorkOperation, req.ctx, { since, agent, access_level: level, limit: MAX_PAGE_SIZE, cursor }),
    { maxRows: TIMELINE_MAX_ROWS },
  );
  const notePages = await followPages(
    'notes',
    (cursor) =>
      invoke(listNotesOperation, req.ctx, { since, agent, project, access_level: level, limit: MAX_PAGE_SIZE, cursor }),
    { maxRows: TIMELINE_MAX_ROWS },
  );
  const sessions = failed(sessionPages) ? [] : sessionPages.sessions;
  const notes = failed(notePages) ? [] : notePages.notes;
  // list_recent_work has no project filter: its rows are kept by project_focus, folded as list_notes folds.
  const projectKey = project ? foldKey(project) : null;
  const keptSessions = projectKey
    ? sessions.filter((s) => s.project_focus.some((p) => foldKey(p) === projectKey))
    : sessions;
  const byDay = new Map<string, DayActivity>();
  const dayOf = (day: string) => {
    let entry = byDay.get(day);
    if (!entry) byDay.set(day, (entry = { sessions: [], notes: [] }));
    return entry;
  };
  for (const session of keptSessions) dayOf(session.date.slice(0, 10)).sessions.push(session);
  for (const note of notes) dayOf(note.date.slice(0, 10)).notes.push(note);
  const days = [...byDay.keys()].sort().reverse();
  const chartAgents = [...new Set([...keptSessions, ...notes].map((item) => item.agent))].sort();
  const error = sessionPages.error ?? notePages.error;
  const body = html` <h1>Activity</h1>
    <form class="filters" method="get" action="/activity" data-autosubmit>
      <label>Since <input type="date" name="since" value="${since}" /></label>
      <label
        >Agent
        <select name="agent">
          ${options(ids, agent, 'all agents')}
        </select></label
      >
      <label>Project <input type="text" name="project" value="${project ?? ''}" placeholder="any project" /></label>
      ${levelSelect(level)}
      <button type="submit">Show</button>
    </form>
    ${error ? errorBox(error) : ''}
    <p class="summary">
      ${keptSessions.length} session${keptSessions.length === 1 ? '' : 's'} and ${notes.length}
      note${notes.length === 1 ? '' : 's'} since ${since} (${when(since, req.now)}), at level
      ${level}.${
        sessionPages.has_more || notePages.has_more
          ? ` Showing the newest ${TIMELINE_MAX_ROWS} of each; narrow the filters for more.`
          : ''
      }
    </p>
    ${chart(byDay, chartAgents)} ${days.length === 0 ? html`<p>No sessions or notes in this window.</p>` : ''}
    <ol class="timeline">
      ${days.map((day) => {
        const entry = byDay.get(day)!;
        return html`<li>
          <h2 class="day">${day} <span class="rel">${when(day, req.now)}</span></h2>
          <ul>
            ${entry.sessions.map(
              (s) =>
                html`<li class="session">
                  <span class="kind">session</span>
                  <strong><a href="${agentHref(s.agent, level)}">${s.agent}</a></strong>
                  <span class="focus">${joined(s.project_focus)}</span
                  >${s.key_actions?.length ? html` — ${joined(s.key_actions)}` : ''}${
                    s.cwd ? html` <span class="detail">${s.cwd}</span>` : ''
                  }
                </li>`,
            )}${entry.notes.map(
              (n) =>
                html`<li class="note">
                  <span class="kind">note</span>
                  <strong><a href="${agentHref(n.agent, level)}">${n.agent}</a></strong>
                  ${noteText(n)}
                </li>`,
            )}
          </ul>
        </li>`;
      })}
    </ol>`;
  return { title: 'Activity', body };
}
