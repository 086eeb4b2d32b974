/**
 * Codex's own threads as candidates of a turn brief: the newest rows of its state database
 * (core/native/codex-state.ts reads them), each named by its title or first message and dated.
 */
import type { Row } from '../../native/sqlite.js';
import { THREAD_DATE_COLUMNS } from '../../native/codex-state.js';
import { stateTimestampDate } from '../../native/python-dates.js';
import { truthy } from '../../python-str.js';
import { clean, matchText, type Candidate } from './candidates.js';

const threadCache = new WeakMap<readonly Row[], readonly Candidate[]>();

/**
 * Codex's threads as candidates: named by title or first message, dated, newest first. Kept per
 * row list (the state database's rows are kept while its stamp holds); never changed in place.
 */
export function threadCandidates(rows: readonly Row[]): readonly Candidate[] {
  const kept = threadCache.get(rows);
  if (kept) return kept;
  const candidates: Candidate[] = [];
  for (const row of rows) {
    const title = clean(sqlText(row.title), 180);
    const firstMessage = clean(sqlText(row.first_user_message), 180);
    const threadName = title || firstMessage || '(untitled)';
    const stamp = THREAD_DATE_COLUMNS.map((column) => row[column]).find(truthy);
    const date = stamp === undefined ? '' : stateTimestampDate(sqlText(stamp));
    if (!date || threadName === '(untitled)') continue;
    const cwd = typeof row.cwd === 'string' ? row.cwd : null;
    const hasRollout = truthy(row.rollout_path);
    const evidence = [`thread date ${date}`];
    if (hasRollout) evidence.push('rollout available');
    if (cwd) evidence.push(`cwd ${cwd}`);
    const summary = clean(cwd ? `cwd ${cwd}` : 'Recent Codex thread metadata.');
    const name = clean(threadName, 120);
    candidates.push({
      kind: 'thread',
      name,
      summary,
      source: hasRollout ? 'codex_rollout' : 'codex_state',
      sourceAgents: ['codex'],
      aliases: [],
      dateText: date,
      cwd,
      projectFocus: [],
      filesTouched: [],
      evidence,
      text: matchText(name, summary, [], cwd),
      lowerName: name.toLowerCase(),
    });
  }
  threadCache.set(rows, candidates);
  return candidates;
}

/** `str(value or "")` of a SQLite value. */
function sqlText(value: unknown): string {
  if (!truthy(value)) return '';
  return value instanceof Uint8Array ? `b'${Buffer.from(value).toString('latin1')}'` : String(value);
}
