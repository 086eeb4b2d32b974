/**
 * The fast path of the `--json` read commands: `bin/run.js` tries it before loading oclif,
 * whose module graph alone costs more than a whole query (bench/README.md, issue 18).
 *
 * It takes only the happy path. Anything unusual (an unknown, repeated or `=`-joined boolean
 * flag, `-h`, `--help`, `--`, a short flag, a value that fails its check, a missing or extra
 * argument, an error thrown or an error payload returned by the operation) returns false
 * before anything is printed, and oclif answers instead: every message, exit code and help
 * text stays oclif's. Redoing the read is safe: CLI reads write no audit line, and the parsed
 * cache they may refresh is idempotent. `BOURDON_NO_FAST_PATH=1` turns it off (docs/cli.md).
 *
 * No oclif import, directly or not: scripts/bundle.mjs bundles this file as its own entry.
 */
import { failed } from '../core/payload.js';
import { stderrWarn } from '../core/store/warn.js';
import { cliSince, jsonText, openLibrary, READ_COMMANDS, type FlagSpec, type ReadCommand } from './read-commands.js';

/** Every command's own flags (BaseCommand.baseFlags). */
const BASE_FLAGS: Readonly<Record<string, FlagSpec>> = { json: { type: 'boolean' }, library: { type: 'string' } };

export interface FastCall {
  command: ReadCommand;
  args: Record<string, string>;
  flags: Record<string, unknown>;
}

/** A flag value as oclif would parse it, or null when the fast path cannot vouch for it. */
function flagValue(spec: FlagSpec, text: string): unknown {
  switch (spec.type) {
    case 'string':
      return !spec.options || spec.options.includes(text) ? text : null;
    case 'integer': {
      if (!/^\d{1,9}$/.test(text)) return null;
      const value = Number(text);
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) return null;
      return value;
    }
    case 'since':
      try {
        return cliSince(text);
      } catch {
        return null;
      }
    case 'boolean':
      return null;
  }
}

/** The call argv (the words after `bourdon`) makes, when the fast path may answer it; else null. */
export function parseFastCall(argv: readonly string[]): FastCall | null {
  const [id, ...words] = argv;
  if (id === undefined || !Object.hasOwn(READ_COMMANDS, id)) return null;
  const command = READ_COMMANDS[id];
  const specs: Record<string, FlagSpec> = { ...BASE_FLAGS, ...command.flags };
  const given = new Set<string>();
  const flags: Record<string, unknown> = {};
  // Booleans default to false, as oclif's flag definitions say (`default: false`).
  for (const [name, spec] of Object.entries(specs)) if (spec.type === 'boolean') flags[name] = false;
  const positional: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith('-')) {
      if (word === '') return null;
      positional.push(word);
      continue;
    }
    if (!word.startsWith('--') || word === '--') return null;
    const equals = word.indexOf('=');
    const name = word.slice(2, equals < 0 ? undefined : equals);
    if (!Object.hasOwn(specs, name) || given.has(name) || command.slow?.includes(name)) return null;
    given.add(name);
    const spec = specs[name];
    if (spec.type === 'boolean') {
      if (equals >= 0) return null;
      flags[name] = true;
      continue;
    }
    const text = equals >= 0 ? word.slice(equals + 1) : words[++i];
    if (text === undefined || text === '' || text.startsWith('-')) return null;
    const value = flagValue(spec, text);
    if (value === null) return null;
    flags[name] = value;
  }
  if (flags.json !== true || positional.length !== command.args.length) return null;
  for (const [a, b] of command.exclusive ?? []) if (given.has(a) && given.has(b)) return null;
  const args = Object.fromEntries(command.args.map((name, i) => [name, positional[i]]));
  return { command, args, flags };
}

/**
 * Answers argv when it is a plain `--json` read: prints the payload (and the library's
 * warnings) and returns true. Returns false, having printed nothing, for oclif to answer.
 */
export async function runFastPath(argv: readonly string[]): Promise<boolean> {
  const call = parseFastCall(argv);
  if (!call) return false;
  // Warnings wait for the answer: after a fallback, oclif's run prints them again.
  const warnings: string[] = [];
  const warn = (message: string) => void warnings.push(message);
  let payload: object;
  try {
    payload = await call.command.payload((library, view) => openLibrary(library, warn, view), call.args, call.flags);
  } catch {
    return false;
  }
  if (failed(payload)) return false;
  for (const message of warnings) stderrWarn(message);
  process.stdout.write(jsonText(payload));
  return true;
}
