/**
 * list_recent_work pages by the row the previous page ended on (store/cursor.ts): walking every
 * page gives the library's sessions in list_recent_work order, each once, for any sessions,
 * level, window and page size; and a walk that continues after other rows were written or
 * removed neither repeats a row it already gave nor skips one still after its cursor.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { invoke } from '../src/core/operations/invoke.js';
import type { ListRecentWorkOutput } from '../src/core/operations/recent-work.js';
import { listRecentWorkOperation } from '../src/core/operations/read-operations.js';
import { canSee, type AccessLevel } from '../src/core/trust/access.js';
import { LibraryStore, parseManifest, type AgentRecord, type LibrarySnapshot } from '../src/core/store/library.js';
import { encodeCursor } from '../src/core/store/cursor.js';

const silent = () => {};
const day = fc
  .record({ month: fc.integer({ min: 1, max: 3 }), date: fc.integer({ min: 1, max: 4 }) })
  .map(({ month, date }) => `2026-0${month}-0${date}`);
/** Few distinct days, so many rows share a date and ties between agents and within one are common. */
const written = fc.oneof(
  day,
  day,
  day.map((d) => `${d}T09:30:00Z`),
  fc.constant('soon'),
);
const row = fc.record({ date: written, visibility: fc.constantFrom<AccessLevel>('public', 'team', 'private') });
type Row = { date: string; visibility: AccessLevel };

let serial = 0;
function agentRecord(id: string, rows: Row[]): AgentRecord {
  const sessions = rows
    .map((r) => `- date: '${r.date}'\n  cwd: /w${(serial += 1)}\n  visibility: ${r.visibility}\n`)
    .join('');
  const text = `agent:\n  id: ${id}\n  type: other\nrecent_sessions:${sessions ? `\n${sessions}` : ' []\n'}`;
  return parseManifest(text, `${id}.l5.yaml`, `/nowhere/${id}.l5.yaml`);
}

/** A store over records in memory: a snapshot is what the test says it is (its root is never read). */
function fakeStore(state: { agents: AgentRecord[] }): LibraryStore {
  let generation = 0;
  let last: LibrarySnapshot | null = null;
  let lastAgents: AgentRecord[] | null = null;
  return new (class extends LibraryStore {
    override snapshot(): LibrarySnapshot {
      if (last && lastAgents === state.agents) return last;
      const agents = [...state.agents].sort((a, b) => (a.id < b.id ? -1 : 1));
      lastAgents = state.agents;
      last = { generation: (generation += 1), agents, broken: [], byId: new Map(agents.map((a) => [a.id, a])) };
      return last;
    }
  })('/nonexistent/bourdon-paging-property', { warn: () => {} });
}

/** The order the engine defines: date as written descending, then agent id descending, then file order. */
function model(agents: AgentRecord[], level: AccessLevel, cutoff: string): string[] {
  const rows = agents.flatMap((agent) => agent.sessions.map((session, index) => ({ agent: agent.id, session, index })));
  return rows
    .filter(({ session }) => session.day !== null && session.day >= cutoff && canSee(level, session.visibility))
    .sort((a, b) =>
      a.session.date !== b.session.date
        ? a.session.date < b.session.date
          ? 1
          : -1
        : a.agent !== b.agent
          ? a.agent < b.agent
            ? 1
            : -1
          : a.index - b.index,
    )
    .map(({ agent, session }) => `${agent}${session.cwd}`);
}

const NOW = () => new Date('2026-06-01T12:00:00Z');
const key = (s: { agent: string; cwd: string | null }) => `${s.agent}${s.cwd}`;

describe('list_recent_work paging by the last row', () => {
  it('a whole walk is the library in order, each row once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { maxLength: 25 }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<AccessLevel>('public', 'team', 'private'),
        fc.constantFrom('2026-01-01', '2026-02-02', '2026-03-04'),
        fc.integer({ min: 1, max: 7 }),
        async (lists, level, since, limit) => {
          const state = { agents: lists.map((rows, i) => agentRecord(`agent-${String(i).padStart(2, '0')}`, rows)) };
          const ctx = createContext(fakeStore(state), { warn: silent, now: NOW });
          const walked: string[] = [];
          let cursor: string | null = null;
          for (let pages = 0; pages < 2000; pages++) {
            const page: ListRecentWorkOutput = await invoke(listRecentWorkOperation, ctx, {
              since,
              limit,
              access_level: level,
              cursor,
            });
            if ('error' in page && page.error) throw new Error(String(page.error));
            walked.push(...page.sessions.map(key));
            expect(page.has_more).toBe(page.next_cursor !== null);
            if (!page.next_cursor) break;
            cursor = page.next_cursor;
          }
          expect(walked).toEqual(model(state.agents, level, since));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a walk continued after writes repeats nothing it gave and skips nothing still after its cursor', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { maxLength: 20 }), { minLength: 2, maxLength: 30 }),
        fc.array(fc.record({ agent: fc.nat(40), rows: fc.array(row, { maxLength: 10 }) }), { maxLength: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        async (lists, writes, limit, pagesBefore) => {
          const state = { agents: lists.map((rows, i) => agentRecord(`agent-${String(i).padStart(2, '0')}`, rows)) };
          const ctx = createContext(fakeStore(state), { warn: silent, now: NOW });
          const args = { since: '2026-01-01', limit, access_level: 'private' };
          const seen: string[] = [];
          let cursor: string | null = null;
          let lastRow: { agent: string; date: string } | null = null;
          for (let p = 0; p < pagesBefore; p++) {
            const page: ListRecentWorkOutput = await invoke(listRecentWorkOperation, ctx, { ...args, cursor });
            seen.push(...page.sessions.map(key));
            cursor = page.next_cursor;
            const tail = page.sessions[page.sessions.length - 1];
            if (tail) lastRow = { agent: tail.agent, date: tail.date };
            if (!cursor) return; // the walk ended before any write
          }
          // Writes: an agent replaced by new rows (its old ones gone), or a new agent.
          for (const write of writes) {
            const id = `agent-${String(write.agent).padStart(2, '0')}`;
            state.agents = [...state.agents.filter((a) => a.id !== id), agentRecord(id, write.rows)];
          }
          const rest: string[] = [];
          for (let pages = 0; cursor && pages < 2000; pages++) {
            const page: ListRecentWorkOutput = await invoke(listRecentWorkOperation, ctx, { ...args, cursor });
            rest.push(...page.sessions.map(key));
            cursor = page.next_cursor;
          }
          const now = model(state.agents, 'private', '2026-01-01');
          // Rows in the cursor's own (date, agent) group are placed by rank; every other row is
          // either wholly before the cursor (never given again) or after it (given once).
          const ordered = state.agents
            .flatMap((a) => a.sessions.map((s) => ({ id: `${a.id}${s.cwd}`, date: s.date, agent: a.id })))
            .filter((r) => now.includes(r.id));
          const after = (r: { date: string; agent: string }) =>
            r.date !== lastRow!.date ? r.date < lastRow!.date : r.agent < lastRow!.agent;
          const expected = now.filter((id) => {
            const r = ordered.find((o) => o.id === id)!;
            return after(r);
          });
          const restOutsideGroup = rest.filter((id) => {
            const r = ordered.find((o) => o.id === id)!;
            return r.date !== lastRow!.date || r.agent !== lastRow!.agent;
          });
          expect(restOutsideGroup).toEqual(expected);
          for (const id of rest) expect(seen).not.toContain(id);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("accepts the engine's offset cursors and its own older ones", async () => {
    const state = {
      agents: [
        agentRecord('a', [
          { date: '2026-03-01', visibility: 'public' },
          { date: '2026-02-01', visibility: 'public' },
          { date: '2026-01-02', visibility: 'public' },
        ]),
      ],
    };
    const ctx = createContext(fakeStore(state), { warn: silent, now: NOW });
    const engine = Buffer.from(JSON.stringify({ offset: 1 })).toString('base64');
    const byOffset = await invoke(listRecentWorkOperation, ctx, { since: '2026-01-01', limit: 1, cursor: engine });
    expect(byOffset.sessions.map((s) => s.date)).toEqual(['2026-02-01']);
    const older = encodeCursor({ offset: 2, cutoff: '2026-01-01' });
    const fromOlder = await invoke(listRecentWorkOperation, ctx, { limit: 5, cursor: older });
    expect(fromOlder.sessions.map((s) => s.date)).toEqual(['2026-01-02']);
  });
});
