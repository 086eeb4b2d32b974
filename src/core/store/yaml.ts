/**
 * The one place manifests are parsed and serialised.
 *
 * Reading: one parser, js-yaml, configured for the reading the engine does with PyYAML's
 * `safe_load` where the two can agree: merge keys (`<<: *anchor`, explicit keys win, a list of
 * anchors merges in order, first wins) and anchors/aliases, on the YAML 1.2 core schema for
 * scalars (dates and `yes`/`no` stay the text written: D7, D10, D13 in docs/conformance.md).
 * Aliases are references in what js-yaml builds, so a "billion laughs" document costs nothing
 * to parse but everything to walk: a document that uses aliases is measured once (each shared
 * node counted once per use, memoised, so the check is linear in the document) and refused past
 * `MAX_EXPANDED_NODES`. Duplicate keys and custom tags are refused.
 *
 * Writing: the `yaml` package, quoting anything YAML 1.1 would read as a non-string (dates,
 * yes/no), so the Python engine (PyYAML, YAML 1.1) reads our files as we do.
 */
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import type * as YamlPackage from 'yaml';
import { lazy } from '../lazy.js';
import { escapeForPyYaml, needsEscapes } from './yaml-write.js';
import { isObject, kindOf, type RawObject } from './model.js';

// The `yaml` package is slow to import (bench/README.md): it is loaded only when something is written. js-yaml
// too: a query answered from the parsed cache parses no YAML at all.
const require = createRequire(import.meta.url);
const yamlPackage = lazy(() => require('yaml') as typeof YamlPackage);
const jsYamlPackage = lazy(() => require('js-yaml') as typeof JsYaml);

/** Aliases one document may use (a manifest sharing fields through an anchor uses one a row). */
const MAX_ALIASES = 10_000;
/** Merge-key work one document may cause (keys copied), js-yaml's own bound raised to our rows. */
const MAX_MERGE_KEYS = 200_000;
/** Nodes a document may expand to through its aliases. */
export const MAX_EXPANDED_NODES = 2_000_000;

/** An alias (*a) in node position; a false positive only costs the expansion check. */
const ALIAS = /(?:^|[\s,[{:?-])\*[^\s,[\]{}]/m;

/**
 * PyYAML's safe schema (YAML 1.1: `yes`/`off` are booleans, `0o17` is text, `012` octal, merge
 * keys) but for timestamps, which stay the text written (D10, D13: the engine's date objects
 * ignore `since` and break its memory resource).
 */
const manifestSchema = lazy(() => {
  const jsYaml = jsYamlPackage();
  const { boolYaml11Tag: bool, floatYaml11Tag: float, NOT_RESOLVED } = jsYaml;
  return new jsYaml.Schema([
    ...jsYaml.FAILSAFE_SCHEMA.tags,
    jsYaml.nullYaml11Tag,
    // PyYAML reads `y` and `n` as text, and `._1` too (its float needs a digit after the point).
    { ...bool, resolve: (source, ...rest) => (source.length === 1 ? NOT_RESOLVED : bool.resolve(source, ...rest)) },
    jsYaml.intYaml11Tag,
    {
      ...float,
      resolve: (source, ...rest) => (/^[-+]?\._/.test(source) ? NOT_RESOLVED : float.resolve(source, ...rest)),
    },
    jsYaml.mergeTag,
  ]);
});

/** Throws when the tree, with every alias expanded, has more than `MAX_EXPANDED_NODES` nodes. */
function checkExpansion(root: unknown): void {
  const sizes = new Map<object, number>();
  const size = (node: unknown): number => {
    if (node === null || typeof node !== 'object') return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      total += size(child);
      if (total > MAX_EXPANDED_NODES) throw new Error(`aliases expand to more than ${MAX_EXPANDED_NODES} nodes`);
    }
    sizes.set(node, total);
    return total;
  };
  size(root);
}

/** A document from its text, or from a file's bytes (read as UTF-8, as `toString` would). */
export function parseYaml(source: string | Buffer): unknown {
  const text = typeof source === 'string' ? source : source.toString('utf8');
  const documents = jsYamlPackage().loadAll(text, {
    schema: manifestSchema(),
    maxAliases: MAX_ALIASES,
    maxTotalMergeKeys: MAX_MERGE_KEYS,
  });
  // As PyYAML's safe_load: an empty stream is null, more than one document an error.
  if (documents.length > 1) throw new Error('expected a single document in the stream');
  const doc = documents.length === 0 ? null : documents[0];
  if (ALIAS.test(text)) checkExpansion(doc);
  return doc;
}

/**
 * Why bytes are not a YAML mapping: `syntax` when they are not YAML at all (the reason is
 * yamlErrorReason's); otherwise `found` is what the document is instead (kindOf: `a list`, `text`).
 */
export class NotYamlMapping extends Error {
  constructor(
    message: string,
    readonly syntax: boolean,
    readonly found?: string,
  ) {
    super(message);
  }
}

/**
 * Text or bytes read as a YAML mapping (a manifest, a staged file, a registry, a peers file):
 * the mapping, or null for an empty document. Throws NotYamlMapping, one line naming no text of
 * the document, when they are not YAML or not a mapping.
 */
export function parseYamlMapping(source: string | Buffer): RawObject | null {
  let doc: unknown;
  try {
    doc = parseYaml(source);
  } catch (error) {
    throw new NotYamlMapping(yamlErrorReason(error), true);
  }
  if (doc === null || doc === undefined) return null;
  if (!isObject(doc)) {
    const found = kindOf(doc);
    throw new NotYamlMapping(`it is not a YAML mapping (found ${found})`, false, found);
  }
  return doc;
}

/** Longest reason kept from a parser's message. */
const MAX_REASON_CHARS = 120;

/**
 * A parse error as one short line that carries no text of the document: the parser's reason
 * and where it stopped (`bad indentation of a mapping entry at line 10, column 1`). Both
 * parsers put a code frame (the lines around the error, private rows included) in their
 * messages, and some reasons quote the document (`unidentified alias "x"`, tags, tokens):
 * the reason is cut before the first quote, tag, bracket or colon, so callers of any tier can
 * be shown it. Only the local log may say more.
 */
export function yamlErrorReason(error: unknown): string {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as {
    reason?: unknown;
    mark?: { line?: unknown; column?: unknown } | null;
    linePos?: { line?: unknown; col?: unknown }[] | null;
    message?: unknown;
  };
  const raw =
    typeof failure.reason === 'string'
      ? failure.reason // js-yaml: the reason without position or frame
      : typeof failure.message === 'string'
        ? failure.message.split('\n')[0].replace(/\s+at line \d+, column \d+:?\s*$/, '')
        : '';
  const reason =
    raw
      .split(/["'`!<>:&*|{[]/)[0]
      .trim()
      .slice(0, MAX_REASON_CHARS)
      .trim() || 'not valid YAML';
  const position = (line: unknown, column: unknown) =>
    typeof line === 'number' && typeof column === 'number' ? ` at line ${line}, column ${column}` : '';
  if (failure.mark) return reason + position(Number(failure.mark.line) + 1, Number(failure.mark.column) + 1);
  const start = Array.isArray(failure.linePos) ? failure.linePos[0] : undefined;
  return reason + (start ? position(start.line, start.col) : '');
}

/** PyYAML's safe loader rejects a bare `=` (its `value` tag), which the writer leaves plain. */
const NEEDS_QUOTES = /^=$/;

/** A number written in exponent form without a point (`1e-7`): YAML 1.1 reads that as text. */
const EXPONENT_WITHOUT_POINT = /^([-+]?\d+)(e[-+]\d+)$/;

type YamlTags = YamlPackage.Tags;
type YamlTag = YamlTags[number];

function isNumberTag(tag: YamlTag): tag is YamlPackage.ScalarTag {
  return typeof tag === 'object' && !('collection' in tag && tag.collection) && /:(?:int|float)$/.test(tag.tag);
}

/** The writer's number tags, each made to write `1.0e-7` where it would write `1e-7`. */
function numbersYaml11CanRead(tags: YamlTags): YamlTags {
  return tags.map((tag) => {
    if (!isNumberTag(tag) || !tag.stringify) return tag;
    const { stringify } = tag;
    return {
      ...tag,
      stringify: (...args: Parameters<typeof stringify>) =>
        stringify(...args).replace(EXPONENT_WITHOUT_POINT, '$1.0$2'),
    };
  });
}

export function stringifyYaml(value: unknown): string {
  const YAML = yamlPackage();
  const doc = new YAML.Document(value, { version: '1.1', customTags: numbersYaml11CanRead });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (needsEscapes(node.value)) node.type = 'QUOTE_DOUBLE';
      else if (NEEDS_QUOTES.test(node.value)) node.type = 'QUOTE_SINGLE';
    },
  });
  return escapeForPyYaml(doc.toString({ singleQuote: true, lineWidth: 0 }));
}
