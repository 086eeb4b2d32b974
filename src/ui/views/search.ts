/**
 * The Search view: search_memory (core/operations/search-memory.ts, through its declaration)
 * over everything the level shows — entities, sessions, notes and workstreams — ranked best
 * first, each result a card with its kind, its score, the fields that matched and its snippet,
 * the matching words marked. The box is in every page's header.
 */
import { invoke } from '../../core/operations/invoke.js';
import { searchMemoryOperation } from '../../core/operations/read-operations.js';
import type { SearchResult } from '../../core/operations/answers.js';
import { SEARCH_KINDS } from '../../core/operations/search-index.js';
import { SEARCH_TEXT_LIMIT } from '../../core/operations/search-memory.js';
import { failed } from '../../core/payload.js';
import { html, joined, type SafeHtml } from '../html.js';
import { agentHref } from './agent.js';
import { errorBox, levelParam, levelSelect, options, param, type View, type ViewRequest } from './common.js';

/** Results one page shows (the tool's most). */
const PAGE_RESULTS = 50;

/** A snippet's `**marks**` as <mark>, everything else escaped. */
function marked(snippet: string): SafeHtml {
  return html`${snippet.split('**').map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : part))}`;
}

function agentLinks(agents: readonly string[]): SafeHtml {
  return html`${agents.map((agent, i) => html`${i ? ', ' : ''}<a href="${agentHref(agent)}">${agent}</a>`)}`;
}

function card(result: SearchResult): SafeHtml {
  const foot = html`<p class="detail">
    ${result.kind} · score ${result.score.toFixed(2)} · matched ${joined(result.matched)}
  </p>`;
  const snippet = html`<p class="snippet">${marked(result.snippet)}</p>`;
  switch (result.kind) {
    case 'entity':
      return html`<section class="card match result" data-kind="entity" data-entity="${result.name}">
        <h2>${result.name}${result.superseded ? html` <small>(superseded)</small>` : ''}</h2>
        ${snippet}
        <p class="agents">
          Known by
          ${agentLinks(result.agents)}${
            result.types.length ? html` · ${joined(result.types)}` : ''
          }${result.tags.length ? html` · tags ${joined(result.tags)}` : ''}
        </p>
        ${foot}
      </section>`;
    case 'workstream':
      return html`<section class="card result" data-kind="workstream" data-workstream="${result.name}">
        <h2>${result.name}</h2>
        <p class="agents">
          Worked on by
          ${agentLinks(result.agents)}${result.last_activity ? ` · last active ${result.last_activity}` : ''}
        </p>
        ${foot}
      </section>`;
    case 'session':
      return html`<section class="card result" data-kind="session" data-agent="${result.agent}">
        <h2>
          <a href="${agentHref(result.agent)}">${result.agent}</a>,
          ${result.date.slice(0, 10)}${result.project_focus.length ? ` — ${result.project_focus.join(', ')}` : ''}
        </h2>
        ${snippet} ${foot}
      </section>`;
    case 'note':
      return html`<section class="card result" data-kind="note" data-agent="${result.agent}">
        <h2>${result.title ?? '(untitled note)'}</h2>
        ${snippet}
        <p class="agents"><a href="${agentHref(result.agent)}">${result.agent}</a>, ${result.date.slice(0, 10)}</p>
        ${foot}
      </section>`;
  }
}

export async function searchView(req: ViewRequest): Promise<View> {
  const asked = param(req, 'q');
  const q = asked?.slice(0, SEARCH_TEXT_LIMIT);
  const level = levelParam(req);
  const kindParam = param(req, 'kind');
  const kind = kindParam && (SEARCH_KINDS as readonly string[]).includes(kindParam) ? kindParam : undefined;
  const form = html`<form class="filters" method="get" action="/search" role="search" data-autosubmit>
    <label>Search <input type="search" name="q" value="${q ?? ''}" maxlength="${SEARCH_TEXT_LIMIT}" /></label>
    <label
      >Kind
      <select name="kind">
        ${options(SEARCH_KINDS, kind, 'all')}
      </select></label
    >
    ${levelSelect(level)}
    <button type="submit">Search</button>
  </form>`;
  if (!q)
    return {
      title: 'Search',
      body: html`<h1>Search</h1>
        ${form}
        <p>
          Type a name, an alias, a tag or words from a summary, a session or a note. Typos, accents and case are
          forgiven; exact names come first.
        </p>`,
    };
  const answer = await invoke(searchMemoryOperation, req.ctx, {
    query: q,
    access_level: level,
    kind: kind ?? null,
    limit: PAGE_RESULTS,
  });
  const results = failed(answer) ? [] : answer.results;
  const body = html`<h1>Search: ${q}</h1>
    ${form} ${failed(answer) ? errorBox(answer.error) : ''}
    <p class="summary">
      ${
        results.length === 0
          ? `Nothing matches “${q}” at level ${level}.`
          : `${results.length} result${results.length === 1 ? '' : 's'} for “${q}”, best first, at level ${level}${
              answer.truncated ? ` (the best ${PAGE_RESULTS}: add words to narrow it)` : ''
            }.`
      }
    </p>
    ${results.map(card)}`;
  return { title: `Search: ${q}`, body };
}
