/**
 * What front matter's reading (`parseYaml11LikePyYaml` in yaml.ts, where js-yaml is loaded)
 * does where PyYAML's safe_load differs from a plain JavaScript reading: a mapping's
 * keys, a repeated key, a key Python cannot hash, and the scalars whose tag safe_load has no
 * constructor for (a plain `=` or `<<`).
 */
import { PythonObject, pyStr } from '../python-str.js';
import { defineKey, type RawObject } from './model.js';

/**
 * A scalar whose tag safe_load has no constructor for: a plain `=` (PyYAML's `value` tag) or a
 * `<<` that is not a mapping's key (its `merge` tag). Where it is a value the document does not
 * load; as a key it is its text (PyYAML reads a `=` key as text; a `<<` key merges).
 */
export class NoConstructor {
  constructor(readonly text: string) {}
}

const REFUSED_VALUE = 'could not determine a constructor for the tag';

/**
 * A mapping key as the front matter's plain object keeps it: Python's `str()` of the key
 * (`True`, `None`, `2.0`, a date's text); undefined for a list, a mapping or a set, which Python
 * cannot hash (safe_load raises).
 */
function keyText(key: unknown): string | undefined {
  if (key instanceof NoConstructor) return key.text;
  if (key !== null && typeof key === 'object' && !(key instanceof PythonObject) && !(key instanceof Uint8Array))
    return undefined;
  return pyStr(key);
}

/** The mapping tag's callbacks: a repeated key keeps its last value (the loader lets it repeat). */
export const frontMatterMapping = {
  create: (): RawObject => ({}),
  addPair: (map: RawObject, key: unknown, value: unknown): string => {
    const text = keyText(key);
    if (text === undefined) return 'found unhashable key';
    if (value instanceof NoConstructor) return REFUSED_VALUE;
    defineKey(map, text, value);
    return '';
  },
  has: (map: RawObject, key: unknown): boolean => {
    const text = keyText(key);
    return text !== undefined && Object.hasOwn(map, text);
  },
  keys: (map: RawObject): string[] => Object.keys(map),
  get: (map: RawObject, key: unknown): unknown =>
    typeof key === 'string' && Object.hasOwn(map, key) ? map[key] : null,
  identify: () => false,
};

/** The sequence tag's callbacks: a `=` item refused. */
export const frontMatterSequence = {
  create: (): unknown[] => [],
  addItem: (list: unknown[], item: unknown): string => {
    if (item instanceof NoConstructor) return REFUSED_VALUE;
    list.push(item);
    return '';
  },
  identify: () => false,
};

/** The parts of a js-yaml parser event (its `parseEvents`) read here: ranges of the source, -1 when absent. */
interface ParserEvent {
  type: number;
  anchorStart?: number;
  anchorEnd?: number;
  tagStart?: number;
  tagEnd?: number;
  style?: number;
}

/** The event kinds and the scalar style these need, as the package numbers them. */
export interface EventKinds {
  document: number;
  alias: number;
  scalar: number;
  plainStyle: number;
}

/**
 * The parser's events made to read as PyYAML's composer reads them, or false where it raises: an
 * anchor defined twice in one document is refused (YAML 1.2 lets a later one win), and a plain
 * scalar tagged `!` is resolved as if untagged (`! 12` is the integer), the tag dropped.
 */
export function asPyYamlComposes(events: ParserEvent[], source: string, kinds: EventKinds): boolean {
  let anchors = new Set<string>();
  for (const event of events) {
    if (event.type === kinds.document) anchors = new Set();
    const { anchorStart = -1, anchorEnd = -1, tagStart = -1, tagEnd = -1 } = event;
    if (anchorStart !== -1 && event.type !== kinds.alias) {
      const anchor = source.slice(anchorStart, anchorEnd);
      if (anchors.has(anchor)) return false;
      anchors.add(anchor);
    }
    if (tagStart !== -1 && event.type === kinds.scalar && event.style === kinds.plainStyle) {
      if (tagEnd - tagStart === 1 && source[tagStart] === '!') event.tagStart = event.tagEnd = -1;
    }
  }
  return true;
}
