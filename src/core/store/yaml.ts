/**
 * The one place YAML packages are loaded: manifests parsed and serialised, front matter read.
 *
 * One parser, js-yaml, with PyYAML's `safe_load` schema (YAML 1.1 scalars, merge keys: explicit
 * keys win, a list of anchors merges in order, first wins; every tag it constructs; numbers with
 * every digit and their kind, yaml-numbers.ts), read two ways, because the conformance cases fix
 * two answers. Manifests (`parseYaml`, `manifestSchema`): dates stay the text written (the
 * engine's date objects break `since` and its memory resource: D7, D10, D13 in
 * docs/conformance.md); duplicate keys and custom tags are refused. Front matter
 * (`parseYaml11LikePyYaml`, `frontMatterSchema`): exactly what `safe_load` gives, dates as
 * YamlTimestamp (yaml-timestamp.ts), a repeated key's last value, failing wherever it raises.
 * Aliases expanding past a bound are refused (yaml-expansion.ts).
 *
 * Writing: our emitter (yaml-emit.ts) for a manifest's plain subset, byte for byte what the
 * `yaml` package writes, and the package for the rest, quoting anything YAML 1.1 would read as a
 * non-string (dates, yes/no), so the Python engine (PyYAML, YAML 1.1) reads our files as we do;
 * a PyFloat or PyInt a manifest was read with is written as PyYAML's `safe_dump` writes it
 * (`2.0`, `1.0e+16`, `.nan`). What the emitter wrote whole is proven to read back without a
 * second parse (yaml-proof.ts; docs/writes.md).
 */
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import type * as YamlPackage from 'yaml';
import { lazy } from '../lazy.js';
import { isPyNumber, PyFloat, PyInt, samePyNumber } from '../python-str.js';
import { emitManifestYaml } from './yaml-emit.js';
import { escapeForPyYaml, needsEscapes } from './yaml-write.js';
import { constructTimestamp, TIMESTAMP_IMPLICIT } from './yaml-timestamp.js';
import {
  exactInt,
  PY_FLOAT_IMPLICIT,
  PY_INT_IMPLICIT,
  pyYamlBool,
  pyYamlFloat,
  pyYamlFloatText,
  pyYamlInt,
} from './yaml-numbers.js';
import { isObject, kindOf, type RawObject } from './model.js';

export { MAX_EXPANDED_NODES };
import { checkExpansion, MAX_EXPANDED_NODES } from './yaml-expansion.js';
import { asPyYamlComposes, frontMatterMapping, frontMatterSequence, NoConstructor } from './yaml-front-matter.js';

// The `yaml` package is slow to import (bench/README.md): it is loaded only when something is written or
// front matter is read. js-yaml
// too: a query answered from the parsed cache parses no YAML at all. The export path's CommonJS
// bundle holds both packages: scripts/bundle.mjs takes the next line out of this module there, so
// esbuild bundles what these `require` calls name (still run on first use), and its code cache
// holds them.
const require = createRequire(import.meta.url);
const yamlPackage = lazy(() => require('yaml') as typeof YamlPackage);
const jsYamlPackage = lazy(() => require('js-yaml') as typeof JsYaml);

/** A decimal integer a number holds exactly, read without BigInt. */
const SMALL_DECIMAL = /^[-+]?[1-9][0-9]{0,14}$/;

/** Aliases one document may use (a manifest sharing fields through an anchor uses one a row). */
const MAX_ALIASES = 10_000;
/** Merge-key work one document may cause (keys copied), js-yaml's own bound raised to our rows. */
const MAX_MERGE_KEYS = 200_000;

/**
 * PyYAML's safe schema (YAML 1.1: `yes`/`off` are booleans, `0o17` is text, `012` octal, merge
 * keys) but for timestamps, which stay the text written (D10, D13: the engine's date objects
 * ignore `since` and break its memory resource). Numbers keep every digit and their kind
 * (yaml-numbers.ts: an integer too large for a number is a PyInt, a float a PyFloat), so a
 * commit writes back what it was not asked to change as the engine would. Every explicit tag
 * `safe_load` constructs is read: `!!float 3` (3.0), `!!int "3"`, `!!bool`, `!!null`, `!!str`,
 * `!!binary` (bytes), `!!set` (a Set), `!!omap` and `!!pairs` (lists), `!!timestamp` (the text,
 * as an untagged date is); a value of one of them that does not fit the model is left out with
 * the file's one warning, not the whole manifest.
 */
const manifestSchema = lazy(() => {
  const { Schema, defineScalarTag, NOT_RESOLVED } = jsYamlPackage();
  return new Schema([
    ...safeLoadTags(),
    defineScalarTag(TIMESTAMP_TAG, {
      resolve: (source) => (TIMESTAMP_IMPLICIT.test(source) ? source : NOT_RESOLVED),
      identify: () => false,
    }),
  ]);
});

/** The tags of PyYAML's safe schema both readings share: all but the timestamp (and, for front matter, the mapping). */
function safeLoadTags(): JsYaml.TagDefinition[] {
  const jsYaml = jsYamlPackage();
  const { boolYaml11Tag: bool, floatYaml11Tag: float, intYaml11Tag: int, nullYaml11Tag: nul, NOT_RESOLVED } = jsYaml;
  const orRefused = <T>(value: T | undefined) => (value === undefined ? NOT_RESOLVED : value);
  const refused = (explicit: boolean): typeof NOT_RESOLVED => {
    if (explicit) return NOT_RESOLVED;
    throw new Error('a plain number PyYAML cannot construct');
  };
  return [
    ...jsYaml.FAILSAFE_SCHEMA.tags,
    { ...nul, resolve: (source, explicit, ...rest) => (explicit ? null : nul.resolve(source, explicit, ...rest)) },
    // PyYAML reads `y` and `n` as text, and `._1` too (its float needs a digit after the point).
    {
      ...bool,
      resolve: (source, explicit, ...rest) =>
        explicit
          ? orRefused(pyYamlBool(source))
          : source.length === 1
            ? NOT_RESOLVED
            : bool.resolve(source, explicit, ...rest),
    },
    {
      ...int,
      // A plain scalar PyYAML resolves as an int but cannot construct (`0b_`) fails, as it does there.
      resolve: (source, explicit) => {
        if (!explicit && !PY_INT_IMPLICIT.test(source)) return NOT_RESOLVED;
        if (SMALL_DECIMAL.test(source)) return Number(source) || 0;
        const value = pyYamlInt(source);
        return value === undefined ? refused(explicit) : exactInt(value);
      },
      identify: () => false,
    },
    {
      ...float,
      resolve: (source, explicit) =>
        !explicit && !PY_FLOAT_IMPLICIT.test(source) ? NOT_RESOLVED : (pyYamlFloat(source) ?? refused(explicit)),
      identify: () => false,
    },
    jsYaml.mergeTag,
    jsYaml.binaryTag,
    jsYaml.setTag,
    jsYaml.omapTag,
    jsYaml.pairsTag,
  ];
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
  checkExpansion(text, doc);
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
        ? failure.message.split('\n')[0]!.replace(/\s+at line \d+, column \d+:?\s*$/, '')
        : '';
  const reason =
    raw
      .split(/["'`!<>:&*|{[]/)[0]!
      .trim()
      .slice(0, MAX_REASON_CHARS)
      .trim() || 'not valid YAML';
  const position = (line: unknown, column: unknown) =>
    typeof line === 'number' && typeof column === 'number' ? ` at line ${line}, column ${column}` : '';
  if (failure.mark) return reason + position(Number(failure.mark.line) + 1, Number(failure.mark.column) + 1);
  const start = Array.isArray(failure.linePos) ? failure.linePos[0] : undefined;
  return reason + (start ? position(start.line, start.col) : '');
}

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';
const FLOAT_TAG = 'tag:yaml.org,2002:float';

/**
 * PyYAML's safe schema as front matter needs it (manifestSchema but for these): timestamps are
 * YamlTimestamp (yaml-timestamp.ts, a date that names no real day refused), a repeated key keeps
 * its last value, a key that cannot be hashed is refused, a plain `=` or `<<` is refused but as a key,
 * and `!!omap` is its list of pairs, as PyYAML's (key, value) tuples.
 */
const frontMatterSchema = lazy(() => {
  const { Schema, defineScalarTag, defineSequenceTag, defineMappingTag, pairsTag, mergeTag, NOT_RESOLVED } =
    jsYamlPackage();
  const orNoConstructor = (value: unknown) => (value === NOT_RESOLVED ? value : new NoConstructor(String(value)));
  return new Schema([
    ...safeLoadTags(),
    defineScalarTag(TIMESTAMP_TAG, {
      implicit: true,
      implicitFirstChars: [...'0123456789'],
      resolve: (source, explicit) =>
        explicit || TIMESTAMP_IMPLICIT.test(source) ? constructTimestamp(source) : NOT_RESOLVED,
      identify: () => false,
    }),
    defineScalarTag('tag:yaml.org,2002:value', {
      implicit: true,
      implicitFirstChars: ['='],
      resolve: (source, explicit) => (explicit || source === '=' ? new NoConstructor(source) : NOT_RESOLVED),
      identify: () => false,
    }),
    { ...mergeTag, resolve: (source, ...rest) => orNoConstructor(mergeTag.resolve(source, ...rest)) },
    defineSequenceTag('tag:yaml.org,2002:seq', frontMatterSequence),
    { ...pairsTag, tagName: 'tag:yaml.org,2002:omap' },
    defineMappingTag('tag:yaml.org,2002:map', frontMatterMapping),
  ]);
});

/** Aliases one front matter may use (docs/conformance.md, "Reading native files"). */
const MAX_FRONT_MATTER_ALIASES = 100;

/**
 * Front matter loaded as the engine's PyYAML safe_load would (YAML 1.1, `frontMatterSchema`),
 * or undefined where safe_load raises: a syntax error, more than one document, a tag it has no
 * constructor for (`!custom`), an anchor defined twice, a timestamp that names no real moment, a list or mapping as a
 * key (unhashable in Python), a plain `=` or `<<` as a value. Timestamps load as YamlTimestamp, numbers
 * as the manifest's do (a PyFloat for every float, a PyInt past 2^53). More than 100 aliases, or
 * aliases expanding past MAX_EXPANDED_NODES, read as malformed.
 */
export function parseYaml11LikePyYaml(source: string): { value: unknown } | undefined {
  const { parseEvents, constructFromEvents, EVENT_ID, SCALAR_STYLE } = jsYamlPackage();
  try {
    const events = parseEvents(source, {});
    const kinds = {
      document: EVENT_ID.DOCUMENT,
      alias: EVENT_ID.ALIAS,
      scalar: EVENT_ID.SCALAR,
      plainStyle: SCALAR_STYLE.PLAIN,
    };
    if (!asPyYamlComposes(events, source, kinds)) return undefined;
    const documents = constructFromEvents(events, {
      source,
      schema: frontMatterSchema(),
      json: true,
      maxAliases: MAX_FRONT_MATTER_ALIASES,
      maxTotalMergeKeys: MAX_MERGE_KEYS,
    });
    if (documents.length > 1) return undefined;
    const value = documents.length === 0 ? null : documents[0];
    if (value instanceof NoConstructor) return undefined;
    checkExpansion(source, value);
    return { value };
  } catch {
    return undefined;
  }
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

/**
 * The numbers a manifest was read with (yaml-numbers.ts), written as PyYAML writes them: a PyFloat
 * by `represent_float` (`2.0`, `-0.0`, `1.0e+16`, `.nan`, `-.inf`), a PyInt with every digit.
 */
const PYTHON_NUMBER_TAGS: YamlTags = [
  {
    identify: (value) => value instanceof PyFloat,
    default: true,
    tag: FLOAT_TAG,
    resolve: (source: string) => source,
    stringify: ({ value }) => pyYamlFloatText(value as PyFloat),
  },
  {
    identify: (value) => value instanceof PyInt,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    resolve: (source: string) => source,
    stringify: ({ value }) => String(value),
  },
];

/**
 * The writer's number tags, each made to write `1.0e-7` where it would write `1e-7`; a JavaScript
 * number that is not a whole number below 1e16 (a commit's `0.5`, `1e20`) is a float, as
 * python-str.ts prints it, written as PyYAML writes that float.
 */
function numbersYaml11CanRead(tags: YamlTags): YamlTags {
  return [...PYTHON_NUMBER_TAGS, ...tags].map((tag) => {
    if (!isNumberTag(tag) || !tag.stringify) return tag;
    const { stringify } = tag;
    return {
      ...tag,
      stringify: (...args: Parameters<typeof stringify>) => {
        const value = args[0].value;
        if (typeof value === 'number' && !(Number.isInteger(value) && Math.abs(value) < 1e16))
          return pyYamlFloatText(new PyFloat(value));
        return stringify(...args).replace(EXPONENT_WITHOUT_POINT, '$1.0$2');
      },
    };
  });
}

/**
 * The schema's tests for a plain scalar that does not read as text (the writer quotes those):
 * what yaml-emit.ts's NON_TEXT_TESTS copies (test/yaml-emit.property.test.ts compares them).
 */
export const packageNonTextTests = lazy(() => {
  const { schema } = new (yamlPackage().Document)(null, { version: '1.1', customTags: numbersYaml11CanRead });
  const tags = [...schema.tags, ...(schema.compat ?? [])] as YamlTag[];
  return tags.flatMap((tag) =>
    typeof tag === 'object' && tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test ? [tag.test] : [],
  );
});

/**
 * `value` as YAML 1.1 that PyYAML reads back as the same data: the manifest's subset written
 * directly (yaml-emit.ts, the same bytes), anything else through the `yaml` package.
 */
export function stringifyYaml(value: unknown): string {
  return stringifyYamlOwn(value) ?? stringifyYamlPackage(value);
}

/** `value` written by yaml-emit.ts, or undefined when it is outside the manifest's subset. */
export function stringifyYamlOwn(value: unknown): string | undefined {
  return emitManifestYaml(value);
}

/**
 * Whether the manifest reader (`parseYaml`: js-yaml with manifestSchema) reads `token`, written
 * plain, as `value`: its own resolution of a plain scalar (the schema's implicit tags, tried as it
 * tries them), compared as `sameValue` compares what a read-back gives (numbers as Python's `==`).
 * False when this js-yaml has no such resolution to ask: the manifest is then parsed back whole.
 */
export function readsBackPlain(token: string, value: unknown): boolean {
  // Marked @internal in js-yaml's types: a js-yaml without it falls back to the full parse.
  const schema: Partial<Pick<JsYaml.Schema, 'resolveImplicitScalarTag'>> = manifestSchema();
  if (typeof schema.resolveImplicitScalarTag !== 'function') return false;
  const read = schema.resolveImplicitScalarTag(token).value;
  if (isPyNumber(value)) return isPyNumber(read) && samePyNumber(read, value);
  return read === value;
}

/** `stringifyYaml` through the `yaml` package's document model: the reference yaml-emit.ts equals. */
export function stringifyYamlPackage(value: unknown): string {
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
