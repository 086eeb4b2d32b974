/**
 * The Search view: entities by name or alias across every agent, through find_entity (what
 * `bourdon find` asks), each with the agents that know it, its types and tags, and each agent's
 * summary. The box is in every page's header.
 */
import { invoke } from '../../core/operations/invoke.js';
import { findEntityOperation } from '../../core/operations/read-operations.js';
import { failed } from '../../core/payload.js';
import { ACCESS_LEVELS } from '../../core/trust/access.js';
import { html, joined, query } from '../html.js';
import { errorBox, levelParam, options, param, tableHead, type View, type ViewRequest } from './common.js';

/** Longest search a request may ask for (names are short; the store folds and compares them). */
const MAX_QUERY_LENGTH = 200;

export async function searchView(req: ViewRequest): Promise<View> {
  const asked = param(req, 'q');
  const q = asked?.slice(0, MAX_QUERY_LENGTH);
  const level = levelParam(req);
  const form = html`<form class="filters" method="get" action="/search" role="search" data-autosubmit>
    <label
      >Entity name or alias <input type="search" name="q" value="${q ?? ''}" maxlength="${MAX_QUERY_LENGTH}"
    /></label>
    <label
      >Level
      <select name="level">
        ${options(ACCESS_LEVELS, level)}
      </select></label
    >
    <button type="submit">Search</button>
  </form>`;
  if (!q)
    return {
      title: 'Search',
      body: html`<h1>Search</h1>
        ${form}
        <p>Type an entity's name or one of its aliases (any case), as <code>bourdon find</code> takes it.</p>`,
    };
  const answer = await invoke(findEntityOperation, req.ctx, { name: q, access_level: level });
  const matches = failed(answer) ? [] : answer.matches;
  const body = html`<h1>Search: ${q}</h1>
    ${form} ${failed(answer) ? errorBox(answer.error) : ''}
    <p class="summary">
      ${
        matches.length === 0
          ? html`No entity is named or aliased “${q}” at level ${level}. Search matches a whole name or alias, as
              <code>bourdon find</code> does.`
          : `${matches.length} entit${matches.length === 1 ? 'y' : 'ies'} named or aliased “${q}”, at level ${level}.`
      }
    </p>
    ${matches.map(
      (match) =>
        html`<section class="card match" data-entity="${match.name}">
          <h2>${match.name}</h2>
          <p class="detail">${joined(match.types)}${match.tags.length ? html` · tags ${joined(match.tags)}` : ''}</p>
          <div class="scroll">
            <table class="stack summaries">
              ${tableHead('Agent', 'Summary')}
              <tbody>
                ${match.agents.map(
                  (agent) =>
                    html`<tr>
                      <th scope="row" data-label="Agent"><a href="/history${query({ agent })}">${agent}</a></th>
                      <td data-label="Summary">${match.summaries[agent] ?? '-'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>
        </section>`,
    )}`;
  return { title: `Search: ${q}`, body };
}
