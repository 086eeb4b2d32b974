/**
 * Cursor's curated memory index (`memory/short-index.json`): topic entities a user or a rule
 * file keeps by hand, each with its own access level.
 */
import { parseJsonText } from '../kit/line-streams.js';
import { type Entity } from '../kit/manifest-shape.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { pyStrip } from '../kit/scrub.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Non-blank items of a list value, each as Python's `str()`, stripped; nothing for a non-list. */
function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => pyStrip(pyStr(item))).filter((item) => item !== '');
}

/**
 * Topic entities from the index's text (UTF-8, a BOM allowed): `entries[]` with a `topic_key`;
 * a later entry with the same key (case-insensitive) replaces an earlier one in its place.
 * Throws on text that is not JSON; any other shape yields nothing.
 */
export function shortIndexEntities(text: string): Entity[] {
  const payload = parseJsonText(text.replace(/^\uFEFF/, ''));
  if (!isObject(payload) || !Array.isArray(payload.entries)) return [];
  const byKey = new Map<string, JsonObject>();
  for (const entry of payload.entries) {
    if (isObject(entry) && truthy(entry.topic_key)) byKey.set(pyStrip(pyStr(entry.topic_key)).toLowerCase(), entry);
  }
  const entities: Entity[] = [];
  for (const entry of byKey.values()) {
    // `topic_name or topic_key`, `triggers or aliases`: Python's `or`, so an empty value falls through.
    const name = pyStrip(pyStr(truthy(entry.topic_name) ? entry.topic_name : entry.topic_key));
    if (!name) continue;
    const aliases = stringList(truthy(entry.triggers) ? entry.triggers : entry.aliases);
    const summary = truthy(entry.summary) ? pyStrip(pyStr(entry.summary)) : '';
    const lastTouched = truthy(entry.last_updated) ? pyStr(entry.last_updated) : '';
    const access = truthy(entry.access_level) ? pyStrip(pyStr(entry.access_level)).toLowerCase() : 'team';
    entities.push({
      name,
      type: 'topic',
      aliases,
      summary: summary || undefined,
      last_touched: lastTouched || undefined,
      tags: [...stringList(entry.tags), 'short-index'],
      visibility: access === 'private' || access === 'public' ? access : 'team',
    });
  }
  return entities;
}
