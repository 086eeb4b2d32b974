/**
 * The fast path of the `--json` read commands: `bin/run.js` tries it before loading oclif,
 * whose module graph alone costs more than a whole query (bench/README.md).
 *
 * It takes only the happy path, parsing argv by the command's declaration (command-spec.ts).
 * Anything unusual (an unknown, repeated or `=`-joined boolean flag, `-h`, `--help`, `--`, a
 * short flag, a value that fails its check, a missing or extra argument, an error thrown or
 * an error payload returned by the operation) returns false
 * before anything is printed, and oclif answers instead: every message, exit code and help
 * text stays oclif's. Redoing the read is safe: CLI reads write no audit line, and the parsed
 * cache they may refresh is idempotent. `BOURDON_NO_FAST_PATH=1` turns it off (docs/cli.md).
 *
 * No oclif import, directly or not: scripts/bundle.mjs bundles this file as its own entry.
 */
import * as z from 'zod';
import { failed } from '../core/payload.js';
import { parseReadArgv, type AnyReadCommand } from './command-spec.js';
import { jsonText, openLibrary, READ_COMMANDS } from './read-commands.js';
import { writeWhole } from './synchronous-output.js';
import { warningText } from './width.js';

// One call validates one input once: zod's compiled fast parser costs more to generate (a
// `new Function` per schema) than it saves (measured: bench/README.md).
z.config({ jitless: true });

export interface FastCall {
  command: AnyReadCommand;
  args: Record<string, string>;
  flags: Record<string, unknown>;
}

/** The call argv (the words after `bourdon`) makes, when the fast path may answer it; else null. */
export function parseFastCall(argv: readonly string[]): FastCall | null {
  // A command in a topic (`note show`) is two words, its id `note:show`.
  const [first, second] = argv;
  const topical = first !== undefined && second !== undefined ? `${first}:${second}` : undefined;
  const id = topical !== undefined && Object.hasOwn(READ_COMMANDS, topical) ? topical : first;
  if (id === undefined) return null;
  const command = Object.hasOwn(READ_COMMANDS, id) ? READ_COMMANDS[id] : undefined;
  if (command === undefined) return null;
  const parsed = parseReadArgv(command, argv.slice(id.split(':').length));
  return parsed && { command, ...parsed };
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
  if (warnings.length) writeWhole(2, warnings.map(warningText).join(''));
  writeWhole(1, jsonText(payload));
  return true;
}
