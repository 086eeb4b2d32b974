/**
 * A read command, declared once as plain data: its positional arguments, its flags with their
 * parse rules, and the payload function that turns them into its operation's answer. Both
 * parsers derive from the declaration: the oclif command's args and flags (`oclifArgs`,
 * `oclifFlags` in flags.ts) and the fast path's argv parser (`parseReadArgv` here, on
 * `node:util` parseArgs), so a flag added once works on both paths, and
 * test/read-commands.parse.test.ts checks the two parses agree on generated argv.
 *
 * No oclif import: the fast path's bundle holds this file.
 */
import { parseArgs } from 'node:util';
import type { OperationContext } from '../core/context.js';
import { SINCE_FORMS } from '../core/store/dates.js';
import { ACCESS_LEVELS } from '../core/trust/access.js';
import type { LibraryView } from '../core/store/partial-store.js';

/**
 * Opens the library a command reads, from its --library flag. A command that reads only part
 * of each agent names it (a LibraryView): the store then reads just the parsed cache's small
 * per-agent parts instead of whole documents.
 */
export type OpenLibrary = (libraryFlag: string | undefined, view?: LibraryView) => OperationContext;

interface FlagBase {
  readonly description: string;
  /** The word help shows for the value (`--limit <n>`). */
  readonly helpValue?: string;
  /** Flags that may not be given with this one. */
  readonly exclusive?: readonly string[];
  /** Flags this one needs; the fast path leaves such a flag to oclif (its checks, its message). */
  readonly dependsOn?: readonly string[];
}

/** A flag and how its value is read: the same rule on both paths. */
export type FlagSpec =
  | (FlagBase & { readonly type: 'boolean' })
  | (FlagBase & { readonly type: 'string'; readonly options?: readonly string[] })
  | (FlagBase & { readonly type: 'integer'; readonly min?: number; readonly max?: number })
  /** A day as people type it (dates.ts `parseSince`): a day or datetime as written, today, yesterday, 7d, 2w. */
  | (FlagBase & { readonly type: 'since'; readonly parse: (text: string) => string });

export { SINCE_FORMS };

/** The level a read command reads at: every read command takes these two flags. */
export const ACCESS_FLAGS = {
  'access-level': {
    type: 'string',
    description:
      'Read at this level: public, team or private (default: the tool default, or $BOURDON_DEFAULT_ACCESS_LEVEL).',
    options: ACCESS_LEVELS,
  },
  'include-private': { type: 'boolean', description: 'Include private rows (same as --access-level private).' },
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** The access flags as an operation's input: only what was given, so the operation's default applies. */
export function accessArgs(flags: { 'access-level'?: string | undefined; 'include-private'?: boolean | undefined }): {
  access_level?: string;
  include_private?: boolean;
} {
  const out: { access_level?: string; include_private?: boolean } = {};
  if (flags['access-level']) out.access_level = flags['access-level'];
  if (flags['include-private']) out.include_private = true;
  return out;
}

export interface ArgSpec {
  readonly name: string;
  readonly description: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** The parsed value of a flag: booleans default to false, the others are absent unless given. */
export type FlagValue<F extends FlagSpec> = F extends { type: 'boolean' }
  ? boolean
  : F extends { type: 'integer' }
    ? number | undefined
    : string | undefined;

/** The flags every read command takes besides its own (BaseCommand.baseFlags). */
export type BaseFlagValues = {
  json?: boolean | undefined;
  library?: string | undefined;
};

export type FlagValues<F extends FlagSpecs> = { [K in keyof F]: FlagValue<F[K]> } & BaseFlagValues;
export type ArgValues<A extends readonly ArgSpec[]> = { [K in A[number]['name']]: string };

export interface ReadCommand<
  A extends readonly ArgSpec[] = readonly ArgSpec[],
  F extends FlagSpecs = FlagSpecs,
  O = object,
> {
  /** Positional arguments, in order; every one is required. */
  readonly args: A;
  /** Flags besides --json and --library (every command's). */
  readonly flags: F;
  readonly payload: (open: OpenLibrary, args: ArgValues<A>, flags: FlagValues<F>) => Promise<O>;
}

/** A read command from its declaration, its argument names and flag types kept for both parsers. */
export function defineReadCommand<const A extends readonly ArgSpec[], const F extends FlagSpecs, O extends object>(
  command: ReadCommand<A, F, O>,
): ReadCommand<A, F, O> {
  return command;
}

/** A read command whose argument and flag types are not known here (the fast path's table). */
export interface AnyReadCommand {
  readonly args: readonly ArgSpec[];
  readonly flags: FlagSpecs;
  payload(open: OpenLibrary, args: Record<string, string>, flags: Record<string, unknown>): Promise<object>;
}

/** What the fast path reads of a flag: its type and value rule, and its relations. */
interface ValueRule {
  readonly type: FlagSpec['type'];
  readonly options?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly parse?: (text: string) => string;
  readonly exclusive?: readonly string[];
  readonly dependsOn?: readonly string[];
}

/** --json (oclif's, BaseCommand.enableJsonFlag) and --library (BaseCommand.baseFlags), as the fast path reads them. */
const BASE_FLAGS: Readonly<Record<string, ValueRule>> = { json: { type: 'boolean' }, library: { type: 'string' } };

/** A value the fast path reads as oclif would, or null when it cannot vouch for it. */
function flagValue(rule: ValueRule, text: string): unknown {
  switch (rule.type) {
    case 'string':
      return !rule.options || rule.options.includes(text) ? text : null;
    case 'integer': {
      // oclif reads integers with Number(); only plain digits are read the same way by both.
      if (!/^\d{1,9}$/.test(text)) return null;
      const value = Number(text);
      if ((rule.min !== undefined && value < rule.min) || (rule.max !== undefined && value > rule.max)) return null;
      return value;
    }
    case 'since':
      try {
        return rule.parse ? rule.parse(text) : null;
      } catch {
        return null;
      }
    case 'boolean':
      return null;
  }
}

/**
 * The arguments and flags `words` give a read command, parsed by its declaration, or null when
 * the fast path cannot vouch for the call and oclif should answer (every message, exit code
 * and help text stays oclif's): an unknown, repeated or `=`-joined boolean flag, a short flag,
 * `--`, `--help`, a missing or empty value or one that fails its rule, a flag that depends on
 * another, two exclusive flags, a missing or extra argument, or no --json.
 */
export function parseReadArgv(
  command: AnyReadCommand,
  words: readonly string[],
): { args: Record<string, string>; flags: Record<string, unknown> } | null {
  const specs: Record<string, ValueRule> = { ...BASE_FLAGS, ...command.flags };
  const options: Record<string, { type: 'boolean' | 'string' }> = {};
  for (const [name, spec] of Object.entries(specs))
    options[name] = { type: spec.type === 'boolean' ? 'boolean' : 'string' };
  let tokens;
  try {
    ({ tokens } = parseArgs({ args: [...words], options, strict: true, allowPositionals: true, tokens: true }));
  } catch {
    return null; // unknown flags, a boolean given a value, a value that looks like a flag: oclif says why
  }
  const given = new Set<string>();
  // Booleans default to false, as the oclif flags say (`default: false`).
  const flags: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) if (spec.type === 'boolean') flags[name] = false;
  const positional: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'option-terminator') return null;
    if (token.kind === 'positional') {
      if (token.value === '') return null;
      positional.push(token.value);
      continue;
    }
    // parseArgs (strict) gives only the options it was told of.
    const spec = specs[token.name]!;
    if (!token.rawName.startsWith('--') || given.has(token.name)) return null;
    if (spec.dependsOn?.length) return null;
    given.add(token.name);
    if (spec.type === 'boolean') {
      flags[token.name] = true;
      continue;
    }
    const text = token.value;
    if (text === undefined || text === '' || text.startsWith('-')) return null;
    const value = flagValue(spec, text);
    if (value === null) return null;
    flags[token.name] = value;
  }
  if (flags.json !== true || positional.length !== command.args.length) return null;
  for (const name of given) {
    if (specs[name]!.exclusive?.some((other) => given.has(other))) return null;
  }
  const args = Object.fromEntries(command.args.map((arg, i) => [arg.name, positional[i]!]));
  return { args, flags };
}
