/**
 * Front matter reads as the engine's PyYAML `safe_load` reads it (issue 55: the memory files of
 * cascade and copilot, read by js-yaml under PyYAML's schema instead of the `yaml` package's
 * document model): generated front matter — YAML 1.1 booleans, octal, hexadecimal and base-60
 * numbers, floats, timestamps, anchors and merge keys, tags, block and flow collections, quoted
 * and block scalars, repeated and non-text keys, and broken documents — gives PyYAML's value, or
 * fails where PyYAML raises.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseYaml11LikePyYaml } from '../src/core/store/yaml.js';
import { YamlTimestamp } from '../src/core/store/yaml-timestamp.js';
import { PyFloat, PyInt } from '../src/core/python-str.js';
import { at } from './helpers/items.js';
import { pyYamlLoad } from './helpers/pyyaml.js';

/** Ours in the form the PyYAML helper prints (test/helpers/pyyaml.ts, `kinds`). */
function plain(value: unknown): unknown {
  if (value instanceof YamlTimestamp) return { $date: value.toString().replace(' ', 'T') };
  if (value instanceof PyFloat) {
    if (Number.isNaN(value.value)) return { $nan: true };
    if (!Number.isFinite(value.value)) return { $inf: value.value > 0 };
    return { $float: value.toString() };
  }
  if (value instanceof PyInt) return { $int: value.toString() };
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

/** Plain scalars PyYAML resolves to something other than text, or refuses, and their look-alikes. */
const plainScalar = fc.constantFrom(
  ...['yes', 'No', 'ON', 'off', 'On', 'y', 'n', 'Y', 'true', 'False', 'TRUE', 'null', 'Null', '~', 'NULL'],
  ...['012', '0o17', '0x1F', '0b101', '-0b11', '1_000', '+1', '-0', '0', '09', '12345678901234567890'],
  ...['1:30', '-1:20', '190:20:30', '1:30.5', '1:70', '3.14', '1.0', '-2.50', '1e3', '1.0e+3', '1.5e3', '.5'],
  ...['-.inf', '.Inf', '.NaN', '.nan', '-.nan', '._1', '1_0.5', '6.8523015e+5', '685.230_15e+03', '-.5', '+.5'],
  ...['0_', '1_', '00', '08', '0.', '1:3.5', '1.5:3', '_1', '+0b1', '1__0'],
  ...['2026-04-27', '2026-4-2', '2026-04-30 09:15:00', '2026-04-30T09:15:00Z', '2026-04-30t09:15:00.5+02:00'],
  ...['2026-04-30 09:15:00 -5', '2026-04-30T09:15:00.123456789-02:30', '2026-02-29', '2024-02-29'],
  ...['plain text', 'x #not a comment?', 'x # a comment', 'a:b', 'http://example.com/a', "it's", 'naïve café'],
  ...['日本語', '==', 'a=b', '-', '?', 'a - b', '&a x', '!', '! 12', '! yes'],
);
/** Quoted and tagged scalars, and flow collections. */
const otherScalar = fc.constantFrom(
  ...['"yes"', "'012'", '"a\\tb"', '"\\x41\\u00e9\\U0001F600"', "'it''s'", '"\\N\\_\\L\\P"', '"\\e"'],
  ...['"\\/"', '"line\n  folded"', "'two\n\n  paragraphs'", "''", '""'],
  ...['!!str 012', '!!int "7"', '!!int 0x1F', '!!float 3', '!!float "1e3"', '!!bool yes', '!!bool "Off"'],
  ...['!!null ""', '!!timestamp 2026-1-2', '!!timestamp 2026-1-2 3:04:05', '!!str', '!!omap [a: 1, b: 2]'],
  ...['!!pairs [a: 1, a: 2]', '[yes, 012, ~, 1:30, 2026-04-27]', '{a: 1, b: [yes, no]}', '[a, [b, {c: d}]]'],
  ...['{=: 1}', '"<<"', '[a: 1, b]'],
);
/** What PyYAML refuses: syntax, constructors, dates that do not exist, `=` and `<<` as values. */
const brokenScalar = fc.constantFrom(
  ...['0b_', '0x_', '2026-02-30', '2026-13-01', '2026-04-30 25:00:00', '0000-01-01', '=', '<<', '%x', '@x', '`x'],
  ...['a: b', '- x', '"a\\', '"unterminated', '!custom x', '!!int x', '!!float x', '!!bool maybe'],
  ...['!!timestamp nope', '!!omap [a]', '!!value x', '[unclosed', '{a: 1', '[a, b]]', '{a, b}', '{? a}'],
  ...['*nowhere', '[=]', '{a: =}', '[<<]', '&base again'],
);
const scalar = fc.oneof(
  { weight: 12, arbitrary: plainScalar },
  { weight: 6, arbitrary: otherScalar },
  { weight: 1, arbitrary: brokenScalar },
);
/** Keys: text, and non-text keys whose Python `str()` is the key read (none equal another in Python). */
const key = fc.oneof(
  {
    weight: 80,
    arbitrary: fc.constantFrom(
      ...['name', 'summary', 'tags', 'date', 'cwd', 'aliases', 'a b', 'x-1', 'Ünï', '"quoted key"', "'single'"],
      ...['yes', 'off', '~', '7', '0x10', '3.5', '2026-01-01', '2026-01-01 10:00:00', '=', '"<<"'],
    ),
  },
  // Keys Python cannot hash.
  { weight: 1, arbitrary: fc.constantFrom('? [a]', '? {a: 1}') },
);
const blockScalar = fc
  .record({
    style: fc.constantFrom('|', '>', '|-', '>+', '|2', '>-'),
    lines: fc.array(fc.constantFrom('first line', 'first line', '  indented', '', 'last: line', '# not a comment'), {
      minLength: 1,
      maxLength: 4,
    }),
  })
  .map(({ style, lines }) => ({ kind: 'block' as const, style, lines }));

type Node =
  | { kind: 'scalar'; text: string }
  | { kind: 'block'; style: string; lines: string[] }
  | { kind: 'list'; items: Node[] }
  | { kind: 'map'; entries: [string, Node][]; merge?: string };

const tree = fc.letrec<{ node: Node; list: Node; map: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar.map((text) => ({ kind: 'scalar' as const, text })),
    blockScalar,
    tie('list'),
    tie('map'),
  ),
  list: fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((items) => ({ kind: 'list' as const, items })),
  map: fc
    .record({
      entries: fc.array(fc.tuple(key, tie('node')), { minLength: 1, maxLength: 4 }),
      merge: fc.option(
        fc.oneof(
          { weight: 10, arbitrary: fc.constantFrom('*base', '[*base, *other]', '{name: inline, extra: 1}') },
          { weight: 1, arbitrary: fc.constantFrom('*nowhere', '[*base, x]', 'x') },
        ),
        { freq: 4 },
      ),
    })
    .map(({ entries, merge }) => ({ kind: 'map' as const, entries, merge: merge ?? undefined })),
}));

/** The lines of `node` as the value of `head` (`key:` or `-`), at `indent`. */
function render(head: string, node: Node, indent: string): string[] {
  // A quoted scalar's later lines indented past its key (PyYAML reads them at any indentation, js-yaml
  // only there: docs/conformance.md).
  if (node.kind === 'scalar') return [`${indent}${head} ${node.text.replaceAll('\n', `\n${indent}  `)}`];
  if (node.kind === 'block')
    return [`${indent}${head} ${node.style}`, ...node.lines.map((line) => (line ? `${indent}  ${line}` : ''))];
  const inner = `${indent}  `;
  const children =
    node.kind === 'list'
      ? node.items.flatMap((item) => render('-', item, inner))
      : [
          ...(node.merge ? [`${inner}<<: ${node.merge}`] : []),
          ...node.entries.flatMap(([k, value]) =>
            render(k.startsWith('? ') ? `${k}\n${inner}:` : `${k}:`, value, inner),
          ),
        ];
  return [`${indent}${head}`, ...children];
}

const frontMatter = fc
  .record({
    entries: fc.array(fc.tuple(key, tree.node), { minLength: 1, maxLength: 5 }),
    comment: fc.boolean(),
  })
  .map(({ entries, comment }) => {
    const lines = ['base: &base {name: base, tags: [a, b], n: 1}', 'other: &other {n: 2, m: 3}'];
    if (comment) lines.push('# a comment', '');
    for (const [k, value] of entries) lines.push(...render(k.startsWith('? ') ? `${k}\n:` : `${k}:`, value, ''));
    return `${lines.join('\n')}\n`;
  });

describe('front matter as PyYAML safe_load reads it', () => {
  it('gives PyYAML’s value for generated front matter, and fails where PyYAML raises', () => {
    const documents = fc.sample(frontMatter, { numRuns: 1500, seed: 55 });
    const theirs = pyYamlLoad(documents, { kinds: true });
    let refused = 0;
    documents.forEach((text, i) => {
      const expected = at(theirs, i);
      const ours = parseYaml11LikePyYaml(text);
      if ('error' in expected) {
        refused += 1;
        expect(ours, `PyYAML raised ${expected.error}:\n${text}`).toBeUndefined();
      } else {
        expect(ours, `PyYAML read it:\n${text}`).toBeDefined();
        expect(plain(ours!.value), text).toEqual(expected.value);
      }
    });
    // Both kinds are well represented.
    expect(refused).toBeGreaterThan(documents.length / 10);
    expect(refused).toBeLessThan((documents.length * 9) / 10);
  });

  it('reads the memory files the bench generates as PyYAML does', () => {
    const entities = Array.from(
      { length: 50 },
      (_, n) =>
        `  - name: "Memory ${n}"\n    type: project\n    summary: "word; see https://x/${n}"\n` +
        `    aliases: [m${n}, "memory-${n}"]\n    tags: [t${n % 10}, bench]\n    last_touched: 2026-04-0${(n % 9) + 1}\n`,
    );
    const text = `entities:\n${entities.join('')}sessions:\n  - date: 2026-04-01\n    key_actions:\n      - one\n`;
    const [theirs] = pyYamlLoad([text], { kinds: true });
    expect(plain(parseYaml11LikePyYaml(text)?.value)).toEqual((theirs as { value: unknown }).value);
  });
});
