/**
 * The Search view: entities whose name, alias or an agent's summary holds the text, across
 * every agent (core/operations/search.ts), each with the agents that know it, its types and
 * tags, and each agent's summary. The box is in every page's header.
 */
import { SEARCH_MATCH_LIMIT, SEARCH_TEXT_LIMIT, searchEntities } from '../../core/operations/search.js';
import { failed } from '../../core/payload.js';
import { html, joined, query } from '../html.js';
import { errorBox, levelParam, levelSelect, param, tableHead, type View, type ViewRequest } from './common.js';

export async function searchView(req: ViewRequest): Promise<View> {
  const asked = param(req, 'q');
  const q = asked?.slice(0, SEARCH_TEXT_LIMIT);
  const level = levelParam(req);
  const form = html`<form class="filters" method="get" action="/search" role="search" data-autosubmit>
    <label
      >Name, alias or summary <input type="search" name="q" value="${q ?? ''}" maxlength="${SEARCH_TEXT_LIMIT}"
    /></label>
    ${levelSelect(level)}
    <button type="submit">Search</button>
  </form>`;
  if (!q)
    return {
      title: 'Search',
      body: html`<h1>Search</h1>
        ${form}
        <p>
          Type part of an entity's name, of one of its aliases or of what an agent says of it (any case). Whole names
          come first.
        </p>`,
    };
  const answer = await searchEntities(req.ctx, { text: q, access_level: level });
  const matches = failed(answer) ? [] : answer.matches;
  const body = html`<h1>Search: ${q}</h1>
    ${form} ${failed(answer) ? errorBox(answer.error) : ''}
    <p class="summary">
      ${
        matches.length === 0
          ? `No entity's name, alias or summary holds “${q}” at level ${level}.`
          : `${matches.length} entit${matches.length === 1 ? 'y' : 'ies'} whose name, alias or summary holds “${q}”, at level ${level}${
              answer.truncated ? ` (the first ${SEARCH_MATCH_LIMIT}: add words to narrow it)` : ''
            }.`
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
