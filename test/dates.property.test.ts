/** Calendar filters (spec §6), as properties over every accepted and rejected form. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  daysInMonth,
  defaultCutoff,
  localDay,
  parseCalendarDay,
  relativeSinceDay,
  resolveCutoff,
} from '../src/core/store/dates.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const validDay = fc
  .record({ year: fc.integer({ min: 1900, max: 2200 }), month: fc.integer({ min: 1, max: 12 }), seed: fc.nat() })
  .map(({ year, month, seed }) => ({ year, month, day: (seed % daysInMonth(year, month)) + 1 }))
  .map(({ year, month, day }) => `${pad(year, 4)}-${pad(month)}-${pad(day)}`);

const validTime = fc
  .record({
    sep: fc.constantFrom('T', ' '),
    hh: fc.integer({ min: 0, max: 23 }),
    mm: fc.integer({ min: 0, max: 59 }),
    ss: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
    zone: fc.option(
      fc.oneof(
        fc.constant('Z'),
        fc
          .record({
            sign: fc.constantFrom('+', '-'),
            h: fc.integer({ min: 0, max: 23 }),
            m: fc.integer({ min: 0, max: 59 }),
            colon: fc.boolean(),
          })
          .map(({ sign, h, m, colon }) => `${sign}${pad(h)}${colon ? ':' : ''}${pad(m)}`),
      ),
      { nil: undefined },
    ),
  })
  .map(({ sep, hh, mm, ss, fraction, zone }) => {
    let text = `${sep}${pad(hh)}:${pad(mm)}`;
    if (ss !== undefined) text += `:${pad(ss)}${fraction !== undefined ? `.${fraction}` : ''}`;
    return text + (zone ?? '');
  });

const NOW = new Date(2026, 5, 20, 12, 0, 0);
const silent = () => {};

describe('since: the calendar day as written', () => {
  it('every valid date form filters by its own day, whatever the time or offset', () => {
    fc.assert(
      fc.property(validDay, fc.option(validTime, { nil: undefined }), (day, time) => {
        expect(parseCalendarDay(day + (time ?? ''))).toBe(day);
        expect(resolveCutoff(day + (time ?? ''), null, NOW, silent)).toBe(day);
      }),
    );
  });

  it('an offset never moves the day: late evening at -05:00 stays on its own day', () => {
    expect(parseCalendarDay('2026-06-01T23:30:00-05:00')).toBe('2026-06-01');
    expect(parseCalendarDay('2026-06-01T00:30:00+14:00')).toBe('2026-06-01');
  });

  it('impossible dates, bad times and bad offsets fall back, warn once, and never throw', () => {
    const impossibleDay = fc.oneof(
      fc
        .record({
          year: fc.integer({ min: 1900, max: 2200 }),
          month: fc.integer({ min: 1, max: 12 }),
          extra: fc.integer({ min: 1, max: 10 }),
        })
        .filter(({ year, month, extra }) => daysInMonth(year, month) + extra <= 99)
        .map(({ year, month, extra }) => `${pad(year, 4)}-${pad(month)}-${pad(daysInMonth(year, month) + extra)}`),
      fc.integer({ min: 13, max: 99 }).map((month) => `2026-${pad(month)}-01`),
      fc.constant('2026-00-10'),
      fc.constant('2026-06-00'),
    );
    const badTime = fc.oneof(
      validDay.chain((day) => fc.integer({ min: 24, max: 99 }).map((hh) => `${day}T${pad(hh)}:00`)),
      validDay.chain((day) => fc.integer({ min: 60, max: 99 }).map((mm) => `${day}T10:${pad(mm)}`)),
      validDay.chain((day) => fc.integer({ min: 60, max: 99 }).map((ss) => `${day}T10:00:${pad(ss)}`)),
      validDay.chain((day) => fc.integer({ min: 24, max: 99 }).map((h) => `${day}T10:00:00+${pad(h)}:00`)),
      validDay.chain((day) => fc.integer({ min: 60, max: 99 }).map((m) => `${day}T10:00:00-05:${pad(m)}`)),
      validDay.map((day) => `${day}Z`),
    );
    const freeText = fc.oneof(
      fc.constantFrom(
        'last tuesday',
        'the day before',
        '7 days',
        '-7d',
        // (`2026-W22-1` and `20260601` are days: Python's fromisoformat reads them, as the engine does.)
        '2026-6-1',
        '06/01/2026',
        '',
        ' 2026-06-01',
        '2026-06-01T',
        '2026-06-01T10',
      ),
      // Not a day, nor a relative form (today, yesterday, 7d, 2w), which resolve to a day.
      fc.string().filter((text) => !/^\d{4}-\d{2}-\d{2}/.test(text) && relativeSinceDay(text, NOW) === null),
    );
    fc.assert(
      fc.property(fc.oneof(impossibleDay, badTime, freeText), fc.option(validDay, { nil: null }), (since, saved) => {
        const warnings: string[] = [];
        expect(parseCalendarDay(since)).toBeNull();
        const cutoff = resolveCutoff(since, saved, NOW, (message) => warnings.push(message));
        expect(cutoff).toBe(saved ?? defaultCutoff(NOW));
        expect(warnings).toHaveLength(1);
      }),
    );
  });

  it('the relative forms (the CLI --since grammar) name a day where the engine would ignore the value', () => {
    const told: string[] = [];
    const tell = (message: string) => told.push(message);
    expect(resolveCutoff('today', null, NOW, tell)).toBe(localDay(NOW));
    expect(resolveCutoff('Yesterday', null, NOW, tell)).toBe(localDay(new Date(2026, 5, 19)));
    expect(resolveCutoff('7d', null, NOW, tell)).toBe('2026-06-13');
    expect(resolveCutoff('2w', '2026-01-01', NOW, tell)).toBe('2026-06-06');
    expect(told).toEqual([]);
    expect(resolveCutoff('garbage', null, NOW, tell)).toBe('2026-06-06');
    expect(resolveCutoff('garbage', '2026-03-01', NOW, tell)).toBe('2026-03-01');
    expect(told).toEqual([
      'since "garbage" is not a date (expected YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago)); the last 14 days were used',
      'since "garbage" is not a date (expected YYYY-MM-DD, an ISO datetime, today, yesterday, 7d (days ago) or 2w (weeks ago)); the cursor\'s window (from 2026-03-01) was used',
    ]);
  });

  it('without since, the cursor cutoff wins, then the 14-day window', () => {
    expect(resolveCutoff(undefined, '2026-03-01', NOW, silent)).toBe('2026-03-01');
    expect(resolveCutoff(null, null, NOW, silent)).toBe('2026-06-06');
    expect(defaultCutoff(new Date(2026, 2, 5))).toBe('2026-02-19');
  });

  it('leap years: Feb 29 exists only in leap years', () => {
    expect(parseCalendarDay('2024-02-29')).toBe('2024-02-29');
    expect(parseCalendarDay('2026-02-29')).toBeNull();
    expect(parseCalendarDay('1900-02-29')).toBeNull();
    expect(parseCalendarDay('2000-02-29')).toBe('2000-02-29');
  });
});
