/**
 * HTML for the local page: a tagged template that escapes every interpolated value, so no
 * text from a manifest, a staged write or the audit log can become markup. Control and
 * bidirectional-override characters are shown escaped (`\u001b`), as the CLI shows them, so
 * a row can neither hide text nor reorder what the reviewer reads.
 */
import { localDay, relativeDay } from '../core/store/dates.js';

/** Markup that is already safe: built by `html`, never from outside text. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML: control and bidi characters escaped visibly, then the five HTML specials. */
function escapeText(value: unknown): string {
  return String(value)
    .replace(
      // eslint-disable-next-line no-control-regex -- control characters are what it escapes
      /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

function part(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(part).join('');
  return escapeText(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  // A template has one more string than values.
  let out = strings[0]!;
  for (const [i, value] of values.entries()) out += part(value) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** A query string from the values that are set. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A day or timestamp as the CLI shows it ("3 days ago"), with the exact value on hover. */
export function when(value: string | null | undefined, now: Date): SafeHtml {
  if (!value) return html`-`;
  return html`<time datetime="${value}" title="${value}">${relativeDay(value, now)}</time>`;
}

/**
 * A moment (an ISO timestamp) as this machine's local day and time with its relative day,
 * `2026-06-05 14:32 today`, the exact value on hover.
 */
export function whenTime(value: string | null | undefined, now: Date): SafeHtml {
  if (!value) return html`-`;
  const moment = new Date(value);
  if (Number.isNaN(moment.getTime())) return html`${value}`;
  const day = localDay(moment);
  const time = [moment.getHours(), moment.getMinutes()].map((n) => String(n).padStart(2, '0')).join(':');
  return html`<time datetime="${value}" title="${value}">${day} ${time}</time>
    <span class="rel">${relativeDay(day, now)}</span>`;
}

/** A list as the CLI joins it. */
export function joined(items: readonly unknown[] | null | undefined): string {
  return items && items.length ? items.map(String).join(', ') : '-';
}
