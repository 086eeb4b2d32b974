/**
 * A manifest's text with the proof that the manifest reader reads it back as written, where our
 * own emitter wrote it whole (docs/writes.md, "Every manifest is proven to read back"):
 * serialiseManifest parses back only a text without it. Also the export's row-at-a-time writing
 * (`stringifyYamlPiecewise`), which carries the proof row by row.
 */
import type { RawObject } from './model.js';
import { readsBackPlain, stringifyYamlPackage } from './yaml.js';
import { emitManifestYaml, NON_TEXT_TESTS } from './yaml-emit.js';

/**
 * Manifests whose text was written whole by yaml-emit.ts with every plain token read back by the
 * manifest reader (`readsBackPlain`), each with that text: `provenText` tells serialiseManifest
 * it need not parse the text back (docs/writes.md, "Every manifest is proven to read back").
 * Rows whose text (in a stringifyYamlPiecewise cache) the `yaml` package wrote are in UNPROVEN.
 */
const PROVEN = new WeakMap<object, string>();
const UNPROVEN = new WeakSet<object>();

/** `value` as stringifyYaml writes it, and whether yaml-emit.ts wrote it with the reader's check. */
function writtenChecked(value: unknown): { text: string; proven: boolean } {
  const own = emitManifestYaml(value, NON_TEXT_TESTS, readsBackPlain);
  return own === undefined ? { text: stringifyYamlPackage(value), proven: false } : { text: own, proven: true };
}

/**
 * A manifest's text, as stringifyYaml writes it (the same bytes), with its proof recorded when
 * yaml-emit.ts wrote it whole (see PROVEN). The manifest must not change before it is serialised.
 */
export function stringifyManifest(manifest: RawObject): string {
  const { text, proven } = writtenChecked(manifest);
  if (proven) PROVEN.set(manifest, text);
  return text;
}

/**
 * Whether `text` is this manifest's text as yaml-emit.ts wrote it whole, each token written plain
 * read back by the manifest reader as the value written (stringifyManifest, stringifyYamlPiecewise).
 */
export function provenText(manifest: RawObject, text: string): boolean {
  return PROVEN.get(manifest) === text;
}

/**
 * `stringifyYaml(mapping)`, written a top-level key and a list item at a time: the same text, since
 * the writer writes each key of a block mapping and each item of a block list alone, at the same
 * indentation wherever it stands, but without the `yaml` package's document model of the whole,
 * which for an export of 20,000 sessions was most of its peak memory (bench/README.md,
 * "Participant exports"). The text of each object item is kept in `items`: a caller writing
 * several selections of the same rows (fitManifest) writes each row once (the rows must not
 * change in between). Data where one object appears twice (the writer gives it an anchor and
 * aliases, numbered over the whole document) is written whole.
 */
export function stringifyYamlPiecewise(mapping: RawObject, items: WeakMap<object, string> = new WeakMap()): string {
  const entries = Object.entries(mapping);
  if (entries.length === 0 || entries.some(([, value]) => value === undefined) || sharesAnObject(mapping))
    return stringifyManifest(mapping);
  const parts: string[] = [];
  // Proven (PROVEN) when yaml-emit.ts wrote every part with the reader's check: its text for the
  // whole mapping is these parts joined (test/yaml-emit.property.test.ts).
  let proven = true;
  const written = (value: unknown) => {
    const result = writtenChecked(value);
    proven &&= result.proven;
    return result;
  };
  for (const [key, value] of entries) {
    // `key:` on a line of its own, as the writer writes it over a list (quoted where it must be).
    const probe = Array.isArray(value) && value.length > 0 ? written({ [key]: [null] }).text : '';
    if (!Array.isArray(value) || !probe.endsWith(`:\n${LIST_PROBE}`)) {
      parts.push(written({ [key]: value }).text);
      continue;
    }
    const keyLine = probe.slice(0, -LIST_PROBE.length);
    parts.push(keyLine);
    for (const item of value) {
      const row = typeof item === 'object' && item !== null ? item : undefined;
      const cached = row && items.get(row);
      if (cached !== undefined) {
        proven &&= !UNPROVEN.has(row);
        parts.push(cached);
        continue;
      }
      // Each item as the writer writes a one-item list in the same place.
      const itemWritten = written({ [key]: [item] });
      const itemText = itemWritten.text.slice(keyLine.length);
      if (row) {
        items.set(row, itemText);
        if (!itemWritten.proven) UNPROVEN.add(row);
      }
      parts.push(itemText);
    }
  }
  const text = parts.join('');
  if (proven) PROVEN.set(mapping, text);
  return text;
}

/** A one-item list of null, as the writer writes it under a key. */
const LIST_PROBE = '  - null\n';

/** Whether some object (mapping or list) is reached twice in JSON-like `root`. */
function sharesAnObject(root: object): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (seen.has(node)) return true;
    seen.add(node);
    stack.push(...Object.values(node));
  }
  return false;
}
