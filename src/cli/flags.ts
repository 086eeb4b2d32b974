/**
 * The oclif side of the read commands' declarations (command-spec.ts): each command's args and
 * flags are derived from its declaration here, so the oclif parse and the fast path's parse
 * read the same flags by the same rules; plus the shared flags and next-page helpers.
 */
import { Args, Flags, type Interfaces } from '@oclif/core';
import type { ArgSpec, FlagSpec, FlagSpecs } from './command-spec.js';
import { WIDE } from './read-commands.js';
import { shellWord } from './output.js';

type OclifFlag<F extends FlagSpec> = F extends { type: 'boolean' }
  ? Interfaces.BooleanFlag<boolean>
  : F extends { type: 'integer' }
    ? Interfaces.OptionFlag<number | undefined>
    : Interfaces.OptionFlag<string | undefined>;

export type OclifFlags<F extends FlagSpecs> = { -readonly [K in keyof F]: OclifFlag<F[K]> };
export type OclifArgs<A extends readonly ArgSpec[]> = { [K in A[number]['name']]: Interfaces.Arg<string> };

/** One oclif flag from its declaration; booleans default to false, as the fast path reads them. */
type AnyOclifFlag =
  | Interfaces.BooleanFlag<boolean>
  | Interfaces.OptionFlag<string | undefined>
  | Interfaces.OptionFlag<number | undefined>;

function oclifFlag(spec: FlagSpec): AnyOclifFlag {
  const common = {
    description: spec.description,
    ...(spec.helpValue ? { helpValue: spec.helpValue } : {}),
    ...(spec.exclusive ? { exclusive: [...spec.exclusive] } : {}),
    ...(spec.dependsOn ? { dependsOn: [...spec.dependsOn] } : {}),
  };
  switch (spec.type) {
    case 'boolean':
      return Flags.boolean<boolean>({ ...common, default: false });
    case 'string':
      return Flags.string({ ...common, ...(spec.options ? { options: [...spec.options] } : {}) });
    case 'integer':
      return Flags.integer({ ...common, min: spec.min, max: spec.max });
    case 'since':
      return Flags.custom<string>({ ...common, parse: async (input) => spec.parse(input) })();
  }
}

/** A command's oclif flags, from its declaration. */
export function oclifFlags<F extends FlagSpecs>(specs: F): OclifFlags<F> {
  const flags: Record<string, ReturnType<typeof oclifFlag>> = {};
  for (const [name, spec] of Object.entries(specs)) flags[name] = oclifFlag(spec);
  // The mapping's type is OclifFlag per key, which the switch above builds flag by flag.
  return flags as OclifFlags<F>;
}

/** A command's oclif arguments, from its declaration: every one required. */
export function oclifArgs<A extends readonly ArgSpec[]>(specs: A): OclifArgs<A> {
  const args: Record<string, Interfaces.Arg<string>> = {};
  for (const spec of specs) args[spec.name] = Args.string({ description: spec.description, required: true });
  return args as OclifArgs<A>;
}

/** `--wide`: tables show every column in full instead of fitting the terminal. */
export const wideFlag = oclifFlags(WIDE);

/**
 * The command that fetches the next page: the command, every flag that shaped this query
 * (the cursor carries only the offset and the day cutoff), then the cursor.
 */
export function nextPageCommand(
  command: string,
  shaping: Record<string, string | number | boolean | undefined>,
  cursor: string,
): string[] {
  const words = ['bourdon', command];
  for (const [name, value] of Object.entries(shaping)) {
    if (value === undefined || value === false || value === '') continue;
    words.push(`--${name}`);
    if (value !== true) words.push(shellWord(String(value)));
  }
  words.push('--cursor', cursor);
  return words;
}

/** The flags every paged listing shares that shape its query (for the next-page command). */
export function shaping(flags: {
  since?: string;
  agent?: string;
  limit?: number;
  'access-level'?: string;
  'include-private'?: boolean;
  library?: string;
}): Record<string, string | number | boolean | undefined> {
  return {
    library: flags.library,
    since: flags.since,
    agent: flags.agent,
    'access-level': flags['access-level'],
    'include-private': flags['include-private'],
    limit: flags.limit,
  };
}
