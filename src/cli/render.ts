/** Human renderings shared by several commands. */
import type { CompileTurnOutput } from '../core/operations/codex-turn/compile.js';
import type { EntityMatch, SessionRef } from '../core/operations/queries.js';
import { colors, list, printable, relativeDay, shellWord, table, wrap } from './output.js';

export function renderMatches(matches: readonly EntityMatch[], empty: string): string {
  if (matches.length === 0) return empty;
  const c = colors();
  const blocks = matches.map((match) => {
    const types = match.types.length ? c.dim(` (${printable(match.types.join(', '))})`) : '';
    const head = `${c.bold(printable(match.name))}${types} — known by ${printable(match.agents.join(', '))}`;
    const lines = [head];
    for (const [agent, summary] of Object.entries(match.summaries))
      lines.push(`  ${c.cyan(printable(agent))}: ${printable(summary)}`);
    if (match.tags.length) lines.push(`  ${c.dim('tags:')} ${printable(match.tags.join(', '))}`);
    return lines.join('\n');
  });
  return blocks.join('\n\n');
}

/**
 * What one agent knows (`query`): each match leads with that agent's own summary; the others
 * who know the entity are named after it, and `find` shows what they say. (The tool's payload
 * is the engine's: the whole match, every agent's summary included.)
 */
export function renderAgentMatches(matches: readonly EntityMatch[], agent: string, empty: string): string {
  if (matches.length === 0) return empty;
  const c = colors();
  const blocks = matches.map((match) => {
    const types = match.types.length ? c.dim(` (${printable(match.types.join(', '))})`) : '';
    const own = match.summaries[agent];
    const lines = [`${c.bold(printable(match.name))}${types}`];
    lines.push(`  ${c.cyan(printable(agent))}: ${own === undefined ? c.dim('(no summary)') : printable(own)}`);
    if (match.tags.length) lines.push(`  ${c.dim('tags:')} ${printable(match.tags.join(', '))}`);
    const others = match.agents.filter((id) => id !== agent);
    if (others.length)
      lines.push(
        c.dim(`  also known by ${printable(others.join(', '))}: bourdon find ${shellWord(printable(match.name))}`),
      );
    return lines.join('\n');
  });
  return blocks.join('\n\n');
}

export function renderSessions(sessions: readonly SessionRef[], empty: string): string {
  if (sessions.length === 0) return empty;
  const rows = sessions.map((session) => [
    session.date,
    relativeDay(session.date),
    session.agent,
    list(session.project_focus),
    session.key_actions ? list(session.key_actions) : '',
  ]);
  return table(['DATE', 'WHEN', 'AGENT', 'FOCUS', 'ACTIONS'], rows, { flex: [3, 4] });
}

/** The noun of an entity-match count: "1 match", "2 matches". */
export const MATCH_NOUN = ['match', 'matches'] as const;

/** An empty answer followed, when there is one, by the hint at a higher level (dimmed). */
export function withHint(text: string, hint: string): string {
  return hint ? `${text}\n${colors().dim(hint)}` : text;
}

/**
 * A Codex turn brief (`compile-turn`) as a person reads it: where the turn runs, how the brief
 * would be delivered, then each anchor with its summary and why it was chosen. Unlike
 * `delivery.explicit_text` (what Codex is given, cut at --max-chars), nothing is cut here; the
 * lines wrap at the terminal's width.
 */
export function renderTurnBrief(brief: CompileTurnOutput): string {
  const c = colors();
  const { repo, routing } = brief;
  const where = repo.root
    ? `repo ${printable(repo.name)}${repo.remote ? ` (${printable(repo.remote)})` : ''}`
    : repo.name
      ? `folder ${printable(repo.name)}, no git repository`
      : 'no folder';
  const lines = [`${c.bold('Codex turn brief')} · ${where} · native Stage 1 ${brief.health.native_stage1}`];
  if (routing.mode === 'observe') {
    lines.push(c.dim('No recognition anchors for this turn: Codex continues without a brief.'));
    return lines.join('\n');
  }
  lines.push(c.dim(`Confidence ${routing.confidence}; deliver as ${routing.surfaces.join(', ')}.`), '');
  for (const item of brief.items) {
    const via = item.source_agents.length ? ` via ${printable(item.source_agents.slice(0, 4).join(', '))}` : '';
    // Continued lines stay under the anchor's text, the reason's under its own.
    lines.push(
      wrap(
        `${item.rank}. ${c.bold(printable(item.name))} ${c.dim(`[${item.kind}, ${item.source}, score ${item.score.toFixed(1)}]`)}${via}`,
        { continuation: 3 },
      ),
      wrap(`   ${printable(item.summary)}`, { continuation: 3 }),
      wrap(`   ${c.dim('Why:')} ${printable(item.reason)}`, { continuation: 8 }),
    );
  }
  return lines.join('\n');
}
