/**
 * The Claude Code `SessionEnd` hook that refreshes the library after every Claude Code session
 * (`bourdon init` offers it; `bourdon init --remove-claude-hook` takes it out). It is one entry
 * in `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when set):
 *
 *   "hooks": { "SessionEnd": [ { "hooks": [ { "type": "command", "command": "… claude-code export --library …" } ] } ] }
 *
 * Everything else in the file is kept as it was (its JSON, not its spacing); installing twice
 * changes nothing; a file that is not JSON is refused, never overwritten.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BourdonError } from '../core/errors.js';
import { packageRoot } from '../core/admin/package-root.js';
import { readUserFile, writeUserFile } from '../core/fs/atomic.js';
import { shellWord } from './output.js';

export type HookStatus = 'installed' | 'exists' | 'removed' | 'absent';

export interface HookResult {
  path: string;
  status: HookStatus;
  command: string;
}

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Claude Code's user settings file. */
export function claudeSettingsPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir =
    env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.trim() ? env.CLAUDE_CONFIG_DIR : path.join(os.homedir(), '.claude');
  return path.join(dir, 'settings.json');
}

/** The hook's command: this Node and this install's CLI, with absolute paths (hooks run without our shell). */
export function hookCommand(libraryRoot: string): string {
  const words = [process.execPath, path.join(packageRoot(), 'bin', 'run.js'), 'claude-code', 'export'];
  return [...words.map(shellWord), '--library', shellWord(path.resolve(libraryRoot))].join(' ');
}

/** Whether a hook command is ours: it runs `claude-code export` through a bourdon CLI. */
function isOurs(command: unknown): boolean {
  return typeof command === 'string' && /\bclaude-code export\b/.test(command) && /bourdon|run\.js/.test(command);
}

function readSettings(file: string): Json {
  const text = readUserFile(file);
  if (text === null || !text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BourdonError(`${file} is not valid JSON; fix it first (nothing was changed)`, 'invalid_input');
  }
  if (!isJson(parsed)) throw new BourdonError(`${file} is not a JSON object; nothing was changed`, 'invalid_input');
  return parsed;
}

function writeSettings(file: string, settings: Json): void {
  writeUserFile(file, JSON.stringify(settings, null, 2) + '\n');
}

/** The SessionEnd groups, as a list (created when asked). */
function sessionEndGroups(settings: Json, create: boolean): unknown[] | null {
  if (!isJson(settings.hooks)) {
    if (!create) return null;
    if (settings.hooks !== undefined)
      throw new BourdonError('settings.json: "hooks" is not an object; nothing was changed', 'invalid_input');
    settings.hooks = {};
  }
  const hooks = settings.hooks as Json;
  if (!Array.isArray(hooks.SessionEnd)) {
    if (!create) return null;
    if (hooks.SessionEnd !== undefined)
      throw new BourdonError('settings.json: "hooks.SessionEnd" is not a list; nothing was changed', 'invalid_input');
    hooks.SessionEnd = [];
  }
  return hooks.SessionEnd as unknown[];
}

function groupHooks(group: unknown): unknown[] {
  return isJson(group) && Array.isArray(group.hooks) ? group.hooks : [];
}

/** Throws, changing nothing, when the hook could not be added to `file` (not JSON, odd shapes). */
export function checkClaudeSettings(file: string): void {
  sessionEndGroups(readSettings(file), true);
}

/** Adds the hook unless one of ours is there already. */
export function installClaudeHook(file: string, command: string): HookResult {
  const settings = readSettings(file);
  const groups = sessionEndGroups(settings, true)!;
  if (groups.some((group) => groupHooks(group).some((hook) => isJson(hook) && isOurs(hook.command))))
    return { path: file, status: 'exists', command };
  groups.push({ hooks: [{ type: 'command', command }] });
  writeSettings(file, settings);
  return { path: file, status: 'installed', command };
}

/** Removes every hook of ours (and the groups and keys it leaves empty); the rest stays. */
export function removeClaudeHook(file: string): HookResult {
  if (!fs.existsSync(file)) return { path: file, status: 'absent', command: '' };
  const settings = readSettings(file);
  const groups = sessionEndGroups(settings, false);
  if (!groups) return { path: file, status: 'absent', command: '' };
  let removed = '';
  const kept = groups.flatMap((group) => {
    if (!isJson(group) || !Array.isArray(group.hooks)) return [group];
    const others = group.hooks.filter((hook) => {
      if (!isJson(hook) || !isOurs(hook.command)) return true;
      removed = String(hook.command);
      return false;
    });
    if (others.length === group.hooks.length) return [group];
    return others.length ? [{ ...group, hooks: others }] : [];
  });
  if (!removed) return { path: file, status: 'absent', command: '' };
  const hooks = settings.hooks as Json;
  if (kept.length) hooks.SessionEnd = kept;
  else delete hooks.SessionEnd;
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  writeSettings(file, settings);
  return { path: file, status: 'removed', command: removed };
}
