/**
 * The one place manifests are parsed and serialised, so the parser can be chosen by
 * measurement without touching the domain (bench/README.md has the figures).
 *
 * Reading: YAML 1.2 core schema only (no custom tags; dates stay strings). A document in the
 * subset manifests are written in (`yaml-subset.ts`: what we, PyYAML and most hands write) is
 * read by our own reader, which answers exactly what js-yaml would and is several times faster
 * in a one-shot process, where js-yaml runs cold. Anything else goes through js-yaml, about 8×
 * faster than the `yaml` package here, or, when it uses anchors or aliases, through `yaml`,
 * whose alias-expansion cap turns a "billion laughs" file into an error instead of a memory
 * bomb. All three give the same data for the same core-schema text (property tests check it),
 * and every parse error comes from js-yaml or `yaml`.
 *
 * Writing: the `yaml` package, quoting anything YAML 1.1 would read as a non-string (dates,
 * yes/no), so the Python engine (PyYAML, YAML 1.1) reads our files as we do.
 */
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import type * as YamlPackage from 'yaml';
import { lazy } from '../lazy.js';
import { readYamlSubset } from './yaml-subset.js';
import { escapeForPyYaml, needsEscapes } from './yaml-write.js';

// The `yaml` package costs ~60 ms to import: load it only when a document needs the careful
// path or something is written, so read-only CLI runs start faster. js-yaml too (half of the
// CLI fast path's code): a query answered from the parsed cache parses no YAML at all.
const require = createRequire(import.meta.url);
const yamlPackage = lazy(() => require('yaml') as typeof YamlPackage);
const jsYamlPackage = lazy(() => require('js-yaml') as typeof JsYaml);

/** Alias expansion cap for the careful path. */
const MAX_ALIAS_COUNT = 100;

/** An anchor (&a) or alias (*a) in node position; a false positive only costs speed. */
const ANCHOR_OR_ALIAS = /(?:^|[\s,[{:?-])[&*][^\s,[\]{}]/m;

export function parseYamlCareful(text: string): unknown {
  return yamlPackage().parse(text, { schema: 'core', maxAliasCount: MAX_ALIAS_COUNT, uniqueKeys: true });
}

export function parseYamlFast(text: string): unknown {
  const jsYaml = jsYamlPackage();
  return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: false });
}

/** A document from its text, or from a file's bytes (read as UTF-8, as `toString` would). */
export function parseYaml(source: string | Buffer): unknown {
  const subset = readYamlSubset(source);
  if (subset !== undefined) return subset;
  const text = typeof source === 'string' ? source : source.toString('utf8');
  return ANCHOR_OR_ALIAS.test(text) ? parseYamlCareful(text) : parseYamlFast(text);
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

/**
 * Plain scalars the YAML 1.1 writer leaves bare but a reader would not take as the same string:
 * `0o17` is a number under our 1.2 core reader, and PyYAML's safe loader rejects a bare `=`.
 */
const NEEDS_QUOTES = /^(?:0o[0-7]+|=)$/;

export function stringifyYaml(value: unknown): string {
  const YAML = yamlPackage();
  const doc = new YAML.Document(value, { version: '1.1' });
  YAML.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      if (needsEscapes(node.value)) node.type = 'QUOTE_DOUBLE';
      else if (NEEDS_QUOTES.test(node.value)) node.type = 'QUOTE_SINGLE';
    },
  });
  return escapeForPyYaml(doc.toString({ singleQuote: true, lineWidth: 0 }));
}
