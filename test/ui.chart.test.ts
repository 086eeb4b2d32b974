/**
 * The activity chart (issue 44, item 7): with one day of data it drew a grid 16 px wide and cut
 * its only day label at the picture's edge. It shows at least two weeks, and every day label
 * fits inside the picture; the newest day is always labelled.
 */
import { describe, expect, it } from 'vitest';
import type { NoteRef } from '../src/core/operations/notes.js';
import type { SessionRef } from '../src/core/rows.js';
import { chart, type DayActivity } from '../src/ui/views/chart.js';

/** A day's activity: `n` sessions of `agent` (only the agent is read by the chart). */
function day(agent: string, n: number): DayActivity {
  return { sessions: Array.from({ length: n }, () => ({ agent }) as SessionRef), notes: [] as NoteRef[] };
}

/** The picture's width, its cells' x, and each day label's x and text. */
function drawn(svg: string) {
  const width = Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1]);
  const cells = [...svg.matchAll(/<rect\s+class="c\d"\s+x="(\d+)"/g)].map((match) => Number(match[1]));
  const ticks = [...svg.matchAll(/<text class="tick" x="(\d+)"[^>]*>\s*([\d-]+)\s*</g)].map((match) => ({
    x: Number(match[1]),
    text: match[2],
  }));
  return { width, cells, ticks };
}

/** A day label at 10 px: five characters of about 6 px each. */
const LABEL_WIDTH = 30;

describe('the activity chart', () => {
  it('one day of data: a two-week grid, the day labelled, no label past the edge', () => {
    const svg = chart(new Map([['2026-12-04', day('codex', 3)]]), ['codex']).toString();
    const { width, cells, ticks } = drawn(svg);
    expect(cells).toHaveLength(14);
    expect(Math.max(...cells) - Math.min(...cells)).toBeGreaterThanOrEqual(13 * 16);
    expect(ticks.map((tick) => tick.text)).toContain('12-04');
    for (const tick of ticks) expect(tick.x + LABEL_WIDTH, tick.text).toBeLessThanOrEqual(width);
    expect(svg).toContain('2026-11-21 to 2026-12-04');
  });

  it('a long window keeps its days (60 at most), labels the newest, and fits every label', () => {
    const byDay = new Map<string, DayActivity>();
    for (let i = 0; i < 90; i += 3) {
      const date = new Date(Date.UTC(2026, 8, 1) + i * 86_400_000).toISOString().slice(0, 10);
      byDay.set(date, day(i % 2 ? 'codex' : 'cursor', 1 + (i % 4)));
    }
    const { width, cells, ticks } = drawn(chart(byDay, ['codex', 'cursor']).toString());
    expect(cells).toHaveLength(2 * 60);
    expect(ticks.at(-1)!.text).toBe('11-27');
    expect(ticks.length).toBeLessThanOrEqual(8);
    for (const tick of ticks) expect(tick.x + LABEL_WIDTH, tick.text).toBeLessThanOrEqual(width);
  });
});
