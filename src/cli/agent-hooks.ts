/**
 * The agents' own end-of-turn hooks that refresh the library (issue 53), beside Claude Code's
 * SessionEnd (claude-hook.ts), each running `bourdon hook <agent>` (src/commands/hook.ts: starts
 * that agent's export in the background and returns at once, saying nothing):
 *
 * - Codex: `notify = [ … ]` in `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`), the
 *   program Codex runs with a JSON argument after each turn (`agent-turn-complete`). Codex runs
 *   one notify program: one the user set is never replaced (`kept`, said so).
 * - Cursor: a `stop` entry in `~/.cursor/hooks.json` (`{"version": 1, "hooks": {"stop":
 *   [{"command": …}]}}`), merged with the user's own hooks.
 *
 * Installing twice changes nothing; before the first change to a file, a copy is kept beside it
 * (`<file>.bourdon-backup`); a file that does not parse is refused, never overwritten; removing
 * (`bourdon init --remove-hooks`) takes out ours only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { packageRoot } from '../core/admin/package-root.js';
import { BourdonError, describeError } from '../core/errors.js';
import { readUserFile, writeUserFile } from '../core/fs/atomic.js';
import { shellWord } from './output.js';

export type AgentHookStatus = 'installed' | 'exists' | 'kept' | 'removed' | 'absent';

export interface AgentHookResult {
  agent: 'codex' | 'cursor';
  path: string;
  status: AgentHookStatus;
  /** Why the user's own entry was kept rather than ours added (`kept`). */
  reason?: string;
  backup?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const homeOf = (env: Env) => (env.HOME && env.HOME.trim() ? env.HOME : os.homedir());

export function codexConfigPath(env: Env = process.env): string {
  const home =
    env.CODEX_HOME && env.CODEX_HOME.trim() ? path.resolve(env.CODEX_HOME) : path.join(homeOf(env), '.codex');
  return path.join(home, 'config.toml');
}

export function cursorHooksPath(env: Env = process.env): string {
  return path.join(homeOf(env), '.cursor', 'hooks.json');
}

/** The hook's argv: this Node and this install's CLI, absolute (hooks run without our shell). */
export function agentHookArgv(agent: 'codex' | 'cursor', libraryRoot: string): string[] {
  return [
    process.execPath,
    path.join(packageRoot(), 'bin', 'run.js'),
    'hook',
    agent,
    '--library',
    path.resolve(libraryRoot),
  ];
}

/** Whether a command (argv or shell line) is ours: `hook <agent>` through a bourdon CLI. */
function isOurs(command: unknown, agent: string): boolean {
  const raw = Array.isArray(command) ? command.join(' ') : typeof command === 'string' ? command : '';
  // Argv, a shell line or a TOML array: the words, without their quotes and commas.
  const text = raw.replace(/["',[\]]/g, ' ').replace(/\s+/g, ' ');
  return new RegExp(`\\bhook ${agent}\\b`).test(text) && /bourdon|run\.js/.test(text);
}

/** Keeps a copy of `file` beside it before the first change Bourdon makes to it. */
function backUp(file: string, text: string | null): string | undefined {
  if (text === null) return undefined;
  const backup = `${file}.bourdon-backup`;
  if (!fs.existsSync(backup)) fs.writeFileSync(backup, text, { mode: fs.statSync(file).mode & 0o777 });
  return backup;
}

// --- Codex ---------------------------------------------------------------------------------

const TOML_MARK = '# bourdon: refresh the library after each Codex turn (`bourdon init --remove-hooks` removes it)';

function codexNotify(file: string, text: string): unknown {
  try {
    return (parseToml(text) as Record<string, unknown>).notify;
  } catch (error) {
    throw new BourdonError(`${file} is not valid TOML (${describeError(error)}); nothing was changed`, 'invalid_input');
  }
}

export function installCodexHook(libraryRoot: string, env: Env = process.env): AgentHookResult {
  const file = codexConfigPath(env);
  const text = readUserFile(file);
  const notify = text === null ? undefined : codexNotify(file, text);
  if (notify !== undefined) {
    if (isOurs(notify, 'codex')) return { agent: 'codex', path: file, status: 'exists' };
    return {
      agent: 'codex',
      path: file,
      status: 'kept',
      reason: `Codex already runs a notify program of yours (${JSON.stringify(notify)}); it was left as it is`,
    };
  }
  const argv = agentHookArgv('codex', libraryRoot);
  // A top-level key must come before the first table: it goes at the top.
  const line = `notify = [${argv.map((word) => JSON.stringify(word)).join(', ')}]`;
  const next = `${TOML_MARK}\n${line}\n${text ? `\n${text}` : ''}`;
  codexNotify(file, next);
  const backup = backUp(file, text);
  writeUserFile(file, next);
  return { agent: 'codex', path: file, status: 'installed', backup };
}

export function removeCodexHook(env: Env = process.env): AgentHookResult {
  const file = codexConfigPath(env);
  const text = readUserFile(file);
  if (text === null || !isOurs(codexNotify(file, text), 'codex'))
    return { agent: 'codex', path: file, status: 'absent' };
  const lines = text.split('\n');
  const kept = lines.filter((line) => line !== TOML_MARK && !(/^\s*notify\s*=/.test(line) && isOurs(line, 'codex')));
  // The blank line installing put after ours goes with it.
  if (kept[0] === '' && lines[0] === TOML_MARK) kept.shift();
  writeUserFile(file, kept.join('\n'));
  return { agent: 'codex', path: file, status: 'removed' };
}

// --- Cursor --------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

function readHooksJson(file: string, text: string | null): Json {
  if (text === null || !text.trim()) return { version: 1, hooks: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BourdonError(`${file} is not valid JSON; fix it first (nothing was changed)`, 'invalid_input');
  }
  if (!isJson(parsed)) throw new BourdonError(`${file} is not a JSON object; nothing was changed`, 'invalid_input');
  if (parsed.hooks !== undefined && !isJson(parsed.hooks))
    throw new BourdonError(`${file}: "hooks" is not an object; nothing was changed`, 'invalid_input');
  const hooks = (parsed.hooks as Json | undefined) ?? {};
  if (hooks.stop !== undefined && !Array.isArray(hooks.stop))
    throw new BourdonError(`${file}: "hooks.stop" is not a list; nothing was changed`, 'invalid_input');
  return { version: 1, ...parsed, hooks };
}

export function installCursorHook(libraryRoot: string, env: Env = process.env): AgentHookResult {
  const file = cursorHooksPath(env);
  const text = readUserFile(file);
  const doc = readHooksJson(file, text);
  const hooks = doc.hooks as Json;
  const stop = (hooks.stop as unknown[] | undefined) ?? [];
  if (stop.some((entry) => isJson(entry) && isOurs(entry.command, 'cursor')))
    return { agent: 'cursor', path: file, status: 'exists' };
  hooks.stop = [...stop, { command: agentHookArgv('cursor', libraryRoot).map(shellWord).join(' ') }];
  const backup = backUp(file, text);
  writeUserFile(file, JSON.stringify(doc, null, 2) + '\n');
  return { agent: 'cursor', path: file, status: 'installed', backup };
}

export function removeCursorHook(env: Env = process.env): AgentHookResult {
  const file = cursorHooksPath(env);
  const text = readUserFile(file);
  if (text === null) return { agent: 'cursor', path: file, status: 'absent' };
  const doc = readHooksJson(file, text);
  const hooks = doc.hooks as Json;
  const stop = (hooks.stop as unknown[] | undefined) ?? [];
  const others = stop.filter((entry) => !(isJson(entry) && isOurs(entry.command, 'cursor')));
  if (others.length === stop.length) return { agent: 'cursor', path: file, status: 'absent' };
  if (others.length) hooks.stop = others;
  else delete hooks.stop;
  writeUserFile(file, JSON.stringify(doc, null, 2) + '\n');
  return { agent: 'cursor', path: file, status: 'removed' };
}

/** Checks, changing nothing, that the hooks for `agents` could go in (files that parse). */
export function checkAgentHookFiles(agents: readonly ('codex' | 'cursor')[], env: Env = process.env): void {
  for (const agent of agents) {
    if (agent === 'codex') {
      const text = readUserFile(codexConfigPath(env));
      if (text !== null) codexNotify(codexConfigPath(env), text);
    } else readHooksJson(cursorHooksPath(env), readUserFile(cursorHooksPath(env)));
  }
}
