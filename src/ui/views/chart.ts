/**
 * The activity chart: items (sessions and notes) per agent per day as an inline SVG grid, the
 * newest days of the window at most. Its data is in the timeline below it.
 */
import type { NoteRef } from '../../core/operations/notes.js';
import type { SessionRef } from '../../core/rows.js';
import { html, type SafeHtml } from '../html.js';

/** Columns of the activity chart: the most recent days of the window. */
const CHART_MAX_DAYS = 60;
/**
 * At least this many columns, days before the first with activity shown empty: one day of data
 * drew a grid 16 px wide, too small to read as a chart (issue 44). Two weeks, the default window.
 */
const CHART_MIN_DAYS = 14;
/** Room a day label (MM-DD at 10 px, about 30 px) takes past its column's left edge. */
const TICK_WIDTH = 34;

export interface DayActivity {
  sessions: SessionRef[];
  notes: NoteRef[];
}

export function chart(byDay: Map<string, DayActivity>, agents: string[]): SafeHtml {
  const days = [...byDay.keys()].sort();
  if (days.length === 0 || agents.length === 0) return html``;
  // Every calendar day from the first with activity to the last, the newest CHART_MAX_DAYS.
  const all: string[] = [];
  const last = Date.parse(`${days[days.length - 1]}T00:00:00Z`);
  const first = Math.min(
    Math.max(Date.parse(`${days[0]}T00:00:00Z`), last - (CHART_MAX_DAYS - 1) * 86_400_000),
    last - (CHART_MIN_DAYS - 1) * 86_400_000,
  );
  for (let t = first; t <= last; t += 86_400_000) all.push(new Date(t).toISOString().slice(0, 10));
  const count = new Map<string, number>();
  let most = 1;
  for (const [day, activity] of byDay) {
    for (const item of [...activity.sessions, ...activity.notes]) {
      const key = `${item.agent}\u0000${day}`;
      const n = (count.get(key) ?? 0) + 1;
      count.set(key, n);
      most = Math.max(most, n);
    }
  }
  const cell = 18;
  const labelWidth = 130;
  // The last column's day label runs past the grid: the picture is wide enough to hold it whole.
  const width = labelWidth + Math.max(all.length * cell, (all.length - 1) * cell + TICK_WIDTH);
  const height = agents.length * cell + 30;
  // Day labels on every other column at most, eight at most, counted back from the newest day
  // so that it is always labelled.
  const tick = Math.max(2, Math.ceil(all.length / 8));
  return html`<figure class="chart">
    <svg role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
      <title id="chart-title">Sessions and notes per agent per day, ${all[0]} to ${all[all.length - 1]}</title>
      ${agents.map(
        (agent, row) =>
          html`<text class="label" x="${labelWidth - 6}" y="${row * cell + cell - 5}" text-anchor="end"
              >${agent.length > 18 ? `${agent.slice(0, 17)}…` : agent}</text
            >
            ${all.map((day, col) => {
              const n = count.get(`${agent}\u0000${day}`) ?? 0;
              const level = n === 0 ? 0 : Math.min(4, Math.ceil((n / most) * 4));
              return html`<rect
                class="c${level}"
                x="${labelWidth + col * cell}"
                y="${row * cell}"
                width="${cell - 2}"
                height="${cell - 2}"
                ><title>${agent}, ${day}: ${n} item${n === 1 ? '' : 's'}</title></rect
              >`;
            })}`,
      )}
      ${all.map((day, col) =>
        (all.length - 1 - col) % tick === 0
          ? html`<text class="tick" x="${labelWidth + col * cell}" y="${agents.length * cell + 14}"
              >${day.slice(5)}</text
            >`
          : '',
      )}
    </svg>
    <figcaption>Activity per agent per day (darker: more sessions and notes).</figcaption>
  </figure>`;
}
