/**
 * Each read command is declared once (src/cli/read-commands.ts) and both parsers derive from
 * the declaration: the oclif command's args and flags, and the fast path's argv parser. Here,
 * for every read command, the two parse generated argv alike: whatever the fast path accepts,
 * oclif accepts with the same arguments and flag values, and a plain well-formed call is one
 * the fast path takes (so it is not agreeing by refusing everything).
 */
import path from 'node:path';
import { Flags, Parser, type Command } from '@oclif/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReadArgv, type AnyReadCommand, type FlagSpec } from '../src/cli/command-spec.js';
import { READ_COMMANDS } from '../src/cli/read-commands.js';
import { REPO_ROOT } from './helpers/fixtures.js';

async function oclifCommand(id: string): Promise<Command.Class> {
  // A command in a topic (`note:show`) lives in its topic's folder (src/commands/note/show.ts).
  const file = path.join(REPO_ROOT, 'src', 'commands', ...id.split(':')) + '.ts';
  return ((await import(file)) as { default: Command.Class }).default;
}

/** What oclif makes of argv: its args and flags (unset ones left out), or null when it refuses. */
async function oclifParse(
  command: Command.Class,
  words: string[],
): Promise<{ args: Record<string, unknown>; flags: Record<string, unknown> } | null> {
  try {
    const output = await Parser.parse(words, {
      args: command.args,
      // --json is oclif's own (enableJsonFlag): added as Command.parse adds it.
      flags: { ...(command.enableJsonFlag ? { json: Flags.boolean() } : {}), ...command.baseFlags, ...command.flags },
      strict: true,
    });
    const flags = Object.fromEntries(Object.entries(output.flags).filter(([, value]) => value !== undefined));
    return { args: output.args, flags };
  } catch {
    return null;
  }
}

const goodWord = fc.constantFrom('codex', 'Bourdon', 'l6 store', 'x', '7');
const word = fc.oneof(goodWord, fc.string({ maxLength: 6 }), fc.constantFrom('', '-x', '--', '-1', '--json', '=x'));

/** Good values for a flag, by its rule. */
function goodValue(spec: FlagSpec): fc.Arbitrary<string> {
  switch (spec.type) {
    case 'string':
      return spec.options ? fc.constantFrom(...spec.options) : fc.constantFrom('codex', 'release', 'a b');
    case 'integer':
      return fc.integer({ min: spec.min ?? 0, max: spec.max ?? 5000 }).map(String);
    case 'since':
      return fc.constantFrom('2026-06-01', '2026-06-01T10:00:00Z', 'today', 'yesterday', '7d', '2w');
    case 'boolean':
      return fc.constant('');
  }
}

/** Any value for a flag: good ones, and ones each rule refuses. */
function anyValue(spec: FlagSpec): fc.Arbitrary<string> {
  // Integers near either bound, where an off-by-one in a range check would show.
  const nearBounds =
    spec.type === 'integer'
      ? fc
          .constantFrom(
            ...[spec.min, spec.max].flatMap((bound) => (bound === undefined ? [] : [bound - 1, bound, bound + 1])),
            0,
          )
          .map(String)
      : goodValue(spec);
  return fc.oneof(
    { weight: 6, arbitrary: goodValue(spec) },
    { weight: 3, arbitrary: nearBounds },
    { weight: 1, arbitrary: fc.constantFrom('0', '101', '1001', '-1', '1.5', '1e2', 'abc', 'garbage', '2026-13-45') },
    { weight: 1, arbitrary: word },
  );
}

/** One flag as written: `--name value`, `--name=value`, or a boolean with or without `=…`. */
function flagWords(name: string, spec: FlagSpec, value: fc.Arbitrary<string>): fc.Arbitrary<readonly string[]> {
  if (spec.type === 'boolean')
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant([`--${name}`]) },
      { weight: 1, arbitrary: fc.constantFrom([`--${name}=true`], [`--${name}=false`]) },
    );
  return fc.oneof(
    { weight: 4, arbitrary: value.map((text) => [`--${name}`, text]) },
    { weight: 4, arbitrary: value.map((text) => [`--${name}=${text}`]) },
    { weight: 1, arbitrary: fc.constant([`--${name}`]) },
  );
}

/**
 * Argv for a command: mostly its arguments and --json with any of its flags (repeated or not,
 * good values and bad), sometimes a word too many or too few, or noise oclif must answer.
 */
export function __anyArgv(read: AnyReadCommand) {
  return anyArgv(read);
}
function anyArgv(read: AnyReadCommand): fc.Arbitrary<string[]> {
  const flags = Object.entries(read.flags).map(([name, spec]) => flagWords(name, spec, anyValue(spec)));
  const noise = fc.constantFrom(['--library', '/tmp/lib'], ['--bogus'], ['-h'], ['--help'], ['--'], ['--json']);
  const positional = fc.oneof(
    { weight: 6, arbitrary: fc.array(goodWord, { minLength: read.args.length, maxLength: read.args.length }) },
    { weight: 1, arbitrary: fc.array(word, { maxLength: read.args.length + 1 }) },
  );
  return fc
    .tuple(
      positional,
      fc.array(fc.oneof(...flags), { maxLength: 3 }),
      fc.option(noise, { freq: 8 }),
      fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      fc.boolean(),
    )
    .map(([args, given, extra, json, flagsFirst]) => {
      const flagWords = [...given.flat(), ...(extra ?? []), ...(json ? ['--json'] : [])];
      return flagsFirst ? [...flagWords, ...args] : [...args, ...flagWords];
    });
}

/** A well-formed call: the right arguments, each flag at most once with a good value, --json. */
function goodArgv(read: AnyReadCommand): fc.Arbitrary<string[]> {
  const exclusive = new Set(Object.values(read.flags).flatMap((spec) => spec.exclusive ?? []));
  const usable = Object.entries(read.flags).filter(([name, spec]) => !spec.dependsOn && !exclusive.has(name));
  const written = ([name, spec]: [string, FlagSpec]) =>
    spec.type === 'boolean'
      ? fc.constant<string[]>([`--${name}`])
      : fc.oneof(
          goodValue(spec).map((text) => [`--${name}`, text]),
          goodValue(spec).map((text) => [`--${name}=${text}`]),
        );
  const perFlag = usable.map((flag) => fc.option(written(flag), { nil: null }));
  const flags = fc.tuple(...perFlag);
  const args = fc.array(goodWord, {
    minLength: read.args.length,
    maxLength: read.args.length,
  });
  return fc
    .tuple(args, flags)
    .map(([positional, chosen]) => [...positional, ...chosen.flatMap((given) => given ?? []), '--json']);
}

describe('read commands: declared once, parsed alike by oclif and the fast path', () => {
  for (const [id, read] of Object.entries(READ_COMMANDS)) {
    it(`${id}: the oclif command's args and flags are the declaration's`, async () => {
      const command = await oclifCommand(id);
      expect(Object.keys(command.args ?? {})).toEqual(read.args.map((arg) => arg.name));
      expect(Object.keys(command.flags ?? {})).toEqual(Object.keys(read.flags));
    });

    it(`${id}: whatever the fast path accepts, oclif reads the same way`, async () => {
      const command = await oclifCommand(id);
      await fc.assert(
        fc.asyncProperty(anyArgv(read), async (words) => {
          const fast = parseReadArgv(read, words);
          if (fast === null) return;
          const oclif = await oclifParse(command, words);
          expect(oclif, words.join(' ')).not.toBeNull();
          expect(oclif!.args).toEqual(fast.args);
          expect(oclif!.flags).toEqual(fast.flags);
        }),
        { numRuns: 300 },
      );
    });

    it(`${id}: a well-formed --json call is the fast path's, and reads as oclif reads it`, async () => {
      const command = await oclifCommand(id);
      await fc.assert(
        fc.asyncProperty(goodArgv(read), async (words) => {
          const fast = parseReadArgv(read, words);
          expect(fast, words.join(' ')).not.toBeNull();
          const oclif = await oclifParse(command, words);
          expect(oclif).toEqual(fast);
        }),
        { numRuns: 100 },
      );
    });
  }

  it("a value the rule refuses is oclif's to report, on both paths", async () => {
    for (const words of [
      ['--json', '--limit', '0'],
      ['--json', '--limit', '101'],
      ['--json', '--since', 'garbage'],
      ['--json', '--all', '--cursor', 'x'],
    ]) {
      expect(parseReadArgv(READ_COMMANDS.recent!, words), words.join(' ')).toBeNull();
      expect(await oclifParse(await oclifCommand('recent'), words), words.join(' ')).toBeNull();
    }
  });
});
