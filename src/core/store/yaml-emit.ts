/**
 * A manifest's YAML written directly, byte for byte what `stringifyYaml` gets from the `yaml`
 * package's document model (with our options: YAML 1.1, single quotes, no folding), for the
 * subset a manifest holds: plain objects with string keys, lists, one-line strings, safe
 * integers, the PyInt/PyFloat a manifest was read with, booleans and null. Anything else (a
 * string over several lines or with a character written escaped, a float, -0, an object reached
 * twice, undefined, a class instance, a very long key) returns undefined, and the caller writes
 * the value through the `yaml` package. The document model cost more than the engine's whole
 * export on claude-desktop-code (bench/README.md, "Exports against the engine");
 * test/yaml-emit.property.test.ts proves the bytes equal the package's on hostile data.
 */
import { PyFloat, PyInt } from '../python-str.js';
import { pyYamlFloatText } from './yaml-numbers.js';

/** Thrown inside the walk when the value leaves the subset. */
const OUTSIDE = Symbol('outside the subset');

/**
 * Characters after which the package's styles differ from the two written here (line breaks,
 * controls, tabs, lone surrogates, what yaml-write.ts escapes): such strings are left to it.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const LEFT_TO_PACKAGE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/u;
/** The package's test for a string it must not write plain (stringifyString.js, one line). */
const NOT_PLAIN = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/;
/** A document marker at a line's start: the package picks its indentation specially. */
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/;
/** Past this, the package writes a key as an explicit `? key`. */
const MAX_IMPLICIT_KEY = 1000;

/**
 * The `yaml` package's tests (2.x, YAML 1.1 schema, our number tags) for a plain scalar that
 * reads as something else than text: null, booleans, integers, floats, base 60, timestamps, and
 * the merge key. Copied so that a write need not load the package (36-58 ms of CPU);
 * test/yaml-emit.property.test.ts fails if the package's own tests ever differ.
 */
export const NON_TEXT_TESTS: readonly RegExp[] = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
  /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0[0-7_]+$/,
  /^[-+]?[0-9][0-9_]*$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
  /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
  /^<<$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
  /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/,
];

/**
 * Whether a reader reads `token`, written plain (unquoted), as `value`: the manifest reader's own
 * scalar resolution (yaml.ts `readsBackPlain`), asked about every plain token written.
 */
export type ReadsBackPlain = (token: string, value: unknown) => boolean;

/**
 * `value` as the `yaml` package writes it with `tests` (NON_TEXT_TESTS), or undefined outside the
 * subset. With `readsBack`, also undefined when the reader it stands for would read one token
 * written plain (a key, a one-line string, a number, true, false, null) as another value: the
 * text returned then reads back as `value`, token for token (docs/writes.md, "Every manifest is
 * proven to read back").
 */
export function emitManifestYaml(
  value: unknown,
  tests: readonly RegExp[] = NON_TEXT_TESTS,
  readsBack?: ReadsBackPlain,
): string | undefined {
  if (!isPlainObject(value) && !Array.isArray(value)) return undefined;
  const nonText = anyOf(tests);
  const seen = new Set<object>();
  const out: string[] = [];

  const text = (str: string, key: boolean): string => {
    if (LEFT_TO_PACKAGE.test(str) || DOCUMENT_MARKER.test(str)) throw OUTSIDE;
    // Past MAX_IMPLICIT_KEY a key is written `? key`; `<<` is the package's merge key, written bare.
    if ((key && str.length > MAX_IMPLICIT_KEY) || str === '<<') throw OUTSIDE;
    if (str === '=') return "'='"; // yaml.ts: PyYAML refuses a plain `=`
    if (!NOT_PLAIN.test(str) && !nonText.test(str)) return plain(str, str);
    const hasDouble = str.includes('"');
    const hasSingle = str.includes("'");
    if (hasSingle && !hasDouble) return JSON.stringify(str);
    return `'${str.replace(/'/g, "''")}'`;
  };

  /** `token`, written plain for `node`, once the reader (when given) reads it back as `node`. */
  const plain = (token: string, node: unknown): string => {
    if (readsBack && !readsBack(token, node)) throw OUTSIDE;
    return token;
  };

  const scalar = (node: unknown): string => {
    if (typeof node === 'string') return text(node, false);
    if (node === null) return plain('null', node);
    if (typeof node === 'boolean') return plain(node ? 'true' : 'false', node);
    if (typeof node === 'number') {
      if (!Number.isSafeInteger(node) || Object.is(node, -0)) throw OUTSIDE;
      return plain(String(node), node);
    }
    if (node instanceof PyFloat) return plain(pyYamlFloatText(node), node);
    if (node instanceof PyInt) return plain(String(node), node);
    throw OUTSIDE;
  };

  const enter = (node: object): void => {
    if (seen.has(node)) throw OUTSIDE; // the package would write an anchor and aliases
    seen.add(node);
  };

  /** A collection's lines at `indent`; `first` replaces the first line's indentation. */
  const collection = (node: object, indent: string, first: string): void => {
    enter(node);
    let lead = first;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        item(node[i], `${lead}- `, `${indent}  `);
        lead = indent;
      }
      return;
    }
    if (!isPlainObject(node)) throw OUTSIDE;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child === undefined) throw OUTSIDE;
      const head = `${lead}${text(key, true)}:`;
      lead = indent;
      if (isNonEmptyCollection(child)) {
        out.push(head);
        // A list under a key is indented as the key's children are (the package's indentSeq).
        collection(child, `${indent}  `, `${indent}  `);
      } else out.push(`${head} ${leaf(child)}`);
    }
  };

  /** A list item: `prefix` is the line's start up to the item, `indent` its children's. */
  const item = (node: unknown, prefix: string, indent: string): void => {
    if (isNonEmptyCollection(node)) collection(node, indent, prefix);
    else out.push(prefix + leaf(node));
  };

  const leaf = (node: unknown): string => {
    if (Array.isArray(node)) {
      enter(node);
      return '[]';
    }
    if (isPlainObject(node)) {
      enter(node);
      return '{}';
    }
    return scalar(node);
  };

  try {
    if (!isNonEmptyCollection(value)) return `${leaf(value)}\n`;
    collection(value, '', '');
  } catch (error) {
    if (error === OUTSIDE) return undefined;
    throw error;
  }
  return `${out.join('\n')}\n`;
}

const UNIONS = new WeakMap<readonly RegExp[], RegExp>();

/**
 * One expression matching what any of `tests` matches (each an alternative of its own, so the
 * union's language is theirs): one pass of a string instead of fourteen.
 */
function anyOf(tests: readonly RegExp[]): RegExp {
  let union = UNIONS.get(tests);
  if (union) return union;
  // A flag or a back-reference (numbered: its group's number changes in the union) keeps them apart.
  if (tests.some((test) => test.flags !== '' || /\\[1-9]/.test(test.source)))
    union = { test: (str: string) => tests.some((t) => t.test(str)) } as RegExp;
  else union = tests.length === 0 ? /(?!)/ : new RegExp(tests.map((test) => `(?:${test.source})`).join('|'));
  UNIONS.set(tests, union);
  return union;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isNonEmptyCollection(value: unknown): value is object {
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) {
    for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) return true;
    return false;
  }
  return false;
}
