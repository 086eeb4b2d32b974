/**
 * Reading a commit's input (`--file <path>` or `-` for stdin) with a hard size cap, and turning
 * it into commit arguments. YAML or JSON (JSON is YAML); either the tool's argument shape
 * (`entities`, `sessions`, `notes`, …) or an L5 manifest (`known_entities`, `recent_sessions`,
 * `agent: {type, instance, role_narrative}`).
 */
import fs from 'node:fs';
import { BourdonError, describeError, readFailureCode, UsageError } from '../core/errors.js';
import { isObject } from '../core/store/manifest.js';
import type { RawObject } from '../core/store/model.js';
import { MAX_INPUT_BYTES, type CommitArgs } from '../core/writes/commit-input.js';
import { readCapped } from '../core/fs/read-capped.js';
import { NotYamlMapping, parseYamlMapping } from '../core/store/yaml.js';

const TOOL_KEYS = ['agent_type', 'instance', 'role_narrative', 'entities', 'sessions', 'notes', 'mode'];
const MANIFEST_KEYS = [
  'spec_version',
  'agent',
  'last_updated',
  'known_entities',
  'recent_sessions',
  'capabilities',
  'visibility_policy',
];

function tooLarge(): BourdonError {
  return new BourdonError(
    `input is larger than ${MAX_INPUT_BYTES} bytes (4 MiB); nothing was written`,
    'invalid_input',
  );
}

/** Reads a stream, refusing more than the cap without buffering the excess. */
async function readInputStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const data = await readCapped(stream, MAX_INPUT_BYTES);
  if (data) return data;
  if ('destroy' in stream && typeof stream.destroy === 'function') (stream as fs.ReadStream).destroy();
  throw tooLarge();
}

export async function readInput(file: string): Promise<{ text: string; label: string }> {
  if (file === '-') return { text: (await readInputStream(process.stdin)).toString('utf8'), label: 'stdin' };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new BourdonError(`cannot read ${file}: ${describeError(error)}`, readFailureCode(error));
  }
  if (stat.isDirectory()) throw new BourdonError(`cannot read ${file}: it is a folder`, 'invalid_input');
  if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw tooLarge();
  try {
    return { text: (await readInputStream(fs.createReadStream(file))).toString('utf8'), label: file };
  } catch (error) {
    if (error instanceof BourdonError) throw error;
    throw new BourdonError(`cannot read ${file}: ${describeError(error)}`, readFailureCode(error));
  }
}

function notCommitArgs(label: string, kind: string): BourdonError {
  return new BourdonError(`${label} must be a mapping with entities, sessions or notes (got ${kind})`, 'invalid_input');
}

/** Commit arguments from input text; one-line errors for anything that is not usable. */
export function commitArgsFromText(
  text: string,
  label: string,
  warn: (message: string) => void,
): Omit<CommitArgs, 'agent_id'> {
  if (!text.trim())
    throw new BourdonError(
      `${label} is empty: expected YAML or JSON with entities, sessions or notes`,
      'invalid_input',
    );
  let doc: RawObject | null;
  try {
    doc = parseYamlMapping(text);
  } catch (error) {
    if (!(error instanceof NotYamlMapping) || error.syntax)
      throw new BourdonError(`cannot parse ${label} as YAML or JSON: ${describeError(error)}`, 'invalid_input');
    // kindOf's `text` is `a string` in this message, as it always was.
    throw notCommitArgs(label, error.found === 'text' ? 'a string' : (error.found ?? 'nothing'));
  }
  if (doc === null) throw notCommitArgs(label, 'null');
  const ignored = Object.keys(doc).filter((key) => !TOOL_KEYS.includes(key) && !MANIFEST_KEYS.includes(key));
  const dropped = ['capabilities', 'visibility_policy'].filter((key) => key in doc);
  if (ignored.length || dropped.length) warn(`ignoring ${[...dropped, ...ignored].join(', ')} in ${label}`);
  const agent = isObject(doc.agent) ? doc.agent : {};
  const pick = (key: string, fallback: unknown) => (doc[key] !== undefined ? doc[key] : fallback);
  const args: Omit<CommitArgs, 'agent_id'> = {
    agent_type: pick('agent_type', agent.type) as string | null | undefined,
    instance: pick('instance', agent.instance) as string | null | undefined,
    role_narrative: pick('role_narrative', agent.role_narrative) as string | null | undefined,
    entities: pick('entities', doc.known_entities) as unknown[] | null | undefined,
    sessions: pick('sessions', doc.recent_sessions) as unknown[] | null | undefined,
    notes: doc.notes as unknown[] | null | undefined,
  };
  if (typeof doc.mode === 'string') args.mode = doc.mode;
  for (const key of ['agent_type', 'instance', 'role_narrative'] as const) {
    const value = args[key];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw new BourdonError(`${key} in ${label} must be text, not ${JSON.stringify(value)}`, 'invalid_input');
    }
  }
  return args;
}

/** A version argument: a whole number, or a usage error. */
export function parseVersion(text: string): number {
  if (!/^\d{1,9}$/.test(text.trim()))
    throw new UsageError(`version must be a whole number, not ${JSON.stringify(text)}`);
  return Number(text.trim());
}
