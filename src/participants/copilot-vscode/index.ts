/**
 * The copilot-vscode participant: GitHub Copilot Chat in VS Code, from the editor's
 * `workspaceStorage` — each workspace's chat transcripts (JSONL) and the notes of its memory tool
 * — as conformance/participants/README.md ("copilot_vscode") says. Only the start of each
 * transcript is read (its first 500 lines, streamed): VS Code's chat files run to hundreds of
 * megabytes, and the session's metadata and first message are at the top. Assistant replies are
 * never read.
 */
import path from 'node:path';
import { SourceReader, modifiedAt } from '../kit/source-reader.js';
import { sinceRules } from '../kit/since.js';
import { slice } from '../kit/markdown.js';
import { assembleManifest, PRIVATE_TAGS, type Entity, type Policy, type Session } from '../kit/manifest-shape.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { compareCodePoints } from '../../core/native/python-values.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { pyStrip, scrubNativeText } from '../kit/scrub.js';

const AGENT_ID = 'copilot-vscode';
const ROLE_NARRATIVE =
  'GitHub Copilot Chat in VS Code: inline completion, chat, and the plan, ask and explore modes, ' +
  'per workspace. Bourdon reads the start of its local chat transcripts and its repo-scoped ' +
  'memory-tool notes.';
const CAPABILITIES = [
  'inline-completion',
  'chat',
  'plan-mode',
  'ask-mode',
  'explore-mode',
  'memory-tool',
  'workspace-scoped',
];
const POLICY: Policy = {
  default: 'team',
  private_tags: PRIVATE_TAGS,
  team_tags: ['copilot-vscode', 'copilot', 'vscode', 'workspace'],
};
const CHAT_FOLDER = 'GitHub.copilot-chat';
const TRANSCRIPT_LINES = 500;
const MESSAGE_CHARS = 200;
const COMMAND_WINDOW = 100;
const MOST_USED_COMMANDS = 10;
const SUMMARY_BULLETS = 3;
/** Where Windows' drive C holds its users under WSL. */
const WSL_USERS = '/mnt/c/Users';

/**
 * VS Code's workspaceStorage: `$COPILOT_VSCODE_STORAGE`; else on Linux the first Windows user's
 * under WSL, then `$XDG_CONFIG_HOME/Code/…`, then `~/.config/Code/…`; macOS and Windows their own.
 */
function storageDir(environment: ExportEnvironment, reader: SourceReader, wslUsers = WSL_USERS): string | undefined {
  const { env, home, cwd, platform } = environment;
  const tail = ['Code', 'User', 'workspaceStorage'];
  if (env.COPILOT_VSCODE_STORAGE) return path.resolve(cwd, env.COPILOT_VSCODE_STORAGE);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', ...tail);
  if (platform === 'win32') return env.APPDATA ? path.join(env.APPDATA, ...tail) : undefined;
  if (reader.isDir(wslUsers)) {
    for (const user of reader.list(wslUsers, { order: 'listing' })) {
      const candidate = path.join(wslUsers, user, 'AppData', 'Roaming', ...tail);
      if (reader.isDir(candidate)) return candidate;
    }
  }
  if (env.XDG_CONFIG_HOME) return path.join(path.resolve(cwd, env.XDG_CONFIG_HOME), ...tail);
  return path.join(home, '.config', ...tail);
}

/** A reader confined to the home, the storage folder the user named and the WSL users' folder. */
function readerFor(environment: ExportEnvironment, wslUsers: string): SourceReader {
  const reader = new SourceReader([environment.home, wslUsers]);
  const named = environment.env.COPILOT_VSCODE_STORAGE;
  if (named) reader.allow(path.resolve(environment.cwd, named));
  if (environment.env.XDG_CONFIG_HOME) reader.allow(path.resolve(environment.cwd, environment.env.XDG_CONFIG_HOME));
  if (environment.env.APPDATA) reader.allow(environment.env.APPDATA);
  return reader;
}

/** The chat folders of the workspaces that have one, in listing order. */
function chatFolders(reader: SourceReader, storage: string | undefined): string[] {
  if (!storage || !reader.isDir(storage)) return [];
  return reader
    .list(storage, { order: 'listing' })
    .map((workspace) => path.join(storage, workspace, CHAT_FOLDER))
    .filter((folder) => reader.isDir(folder));
}

interface Transcript {
  startTime: string;
  producer: unknown;
  copilotVersion: unknown;
  /** The first user message's first 200 characters. */
  firstMessage: string | undefined;
  turns: number;
}

/**
 * An object line that names none of the types read, and escapes nothing, cannot be one of them:
 * it is not parsed (assistant replies are most of a transcript's bytes). Four `includes` scan a
 * line three to four times faster than one pattern of the four words (issue 55).
 */
const READ_TYPE = ['session.start', 'user.message', 'assistant.turn_end', '\\u'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One transcript, or undefined when it has no lines. Lines that are not JSON are skipped
 * silently (the engine's rule); a line or field of the wrong type, which stops the engine, is
 * skipped with a warning.
 */
function readTranscript(reader: SourceReader, file: string): Transcript | undefined {
  const transcript: Transcript = {
    startTime: '',
    producer: null,
    copilotVersion: null,
    firstMessage: undefined,
    turns: 0,
  };
  let lines = 0;
  const wrong = (what: string) => reader.warn(`${file}: ${what}; that line is skipped`);
  // Only the record types read are parsed: an assistant reply line is skipped as text.
  const read = { lines: 'stripped', maxLines: TRANSCRIPT_LINES } as const;
  for (const { value: record } of reader.jsonRecords(file, {
    ...read,
    accept: (line) => !line.startsWith('{') || READ_TYPE.some((word) => line.includes(word)),
  })) {
    lines += 1;
    if (record === undefined) continue;
    if (!isObject(record)) {
      wrong(`line ${lines} is JSON but not an object`);
      continue;
    }
    const data = record.data;
    if (record.type !== 'session.start' && record.type !== 'user.message') {
      if (record.type === 'assistant.turn_end') transcript.turns += 1;
      continue;
    }
    if (truthy(data) && !isObject(data)) {
      wrong(`line ${lines} has a ${String(record.type)} whose data is not an object`);
      continue;
    }
    const fields = isObject(data) ? data : {};
    if (record.type === 'session.start') {
      const start = fields.startTime;
      if (start !== undefined && start !== null && typeof start !== 'string') {
        wrong(`line ${lines} has a startTime that is not text`);
        continue;
      }
      transcript.startTime = start ?? '';
      transcript.producer = fields.producer ?? null;
      transcript.copilotVersion = fields.copilotVersion ?? null;
    } else if (truthy(fields.content)) {
      if (typeof fields.content !== 'string') {
        wrong(`line ${lines} has a message whose content is not text`);
        continue;
      }
      transcript.firstMessage ??= slice(fields.content, MESSAGE_CHARS);
    }
  }
  return lines === 0 ? undefined : transcript;
}

function sessionOf(transcript: Transcript): Session {
  const actions: string[] = [];
  if (transcript.firstMessage !== undefined) actions.push(scrubNativeText(transcript.firstMessage));
  if (transcript.turns > 0) actions.push(`turns: ${transcript.turns}`);
  if (truthy(transcript.copilotVersion)) actions.push(`copilot: ${pyStr(transcript.copilotVersion)}`);
  if (truthy(transcript.producer)) actions.push(`mode: ${pyStr(transcript.producer)}`);
  return { date: slice(transcript.startTime, 10), key_actions: actions, visibility: 'team' };
}

/**
 * One memory-tool note as an entity: named by its path below `memories/` without the last
 * extension; summary = its first three `- ` bullets (nested ones too), joined with `; `, scrubbed.
 * A blank note gives none.
 */
function memoryEntity(reader: SourceReader, file: string, parts: readonly string[]): Entity | undefined {
  const bullets: string[] = [];
  let blank = true;
  for (const line of reader.strippedLines(file)) {
    blank = false;
    if (line === undefined) continue;
    const trimmed = pyStrip(line);
    if (trimmed.startsWith('- ')) bullets.push(pyStrip(trimmed.slice(2)));
    if (bullets.length === SUMMARY_BULLETS) break;
  }
  if (blank) return undefined;
  const last = parts.at(-1) ?? '';
  // Python's Path.suffix: the last `.part`, unless the name only starts with the dot (`.md`).
  const dot = last.lastIndexOf('.');
  const stem = dot > 0 ? last.slice(0, dot) : last;
  return {
    name: [...parts.slice(0, -1), stem].join('/'),
    type: 'vscode-memory',
    summary: bullets.length > 0 ? scrubNativeText(bullets.join('; ')) : undefined,
    tags: ['copilot-vscode', 'memory-tool', 'repo-memory'],
    visibility: 'team',
  };
}

/** The slash commands that open transcripts (`/explain …`), the 10 most used, ties by first use. */
function commandEntities(transcripts: readonly Transcript[]): Entity[] {
  const counts = new Map<string, number>();
  for (const transcript of transcripts) {
    const command = /^\/(\S+)/u.exec(slice(transcript.firstMessage ?? '', COMMAND_WINDOW))?.[1];
    if (command) counts.set(command, (counts.get(command) ?? 0) + 1);
  }
  // Array.prototype.sort is stable: equal counts keep the order of first appearance.
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, MOST_USED_COMMANDS)
    .map(([command, count]) => ({
      name: `copilot-command:${command}`,
      type: 'vscode-capability',
      summary: `VS Code Copilot command used ${count} time(s).`,
      tags: ['copilot-vscode', 'capability'],
      visibility: 'team',
    }));
}

function statusOf(name: string, target: string, found: boolean): SourceStatus {
  return found ? { name, path: target, found, modified: modifiedAt(target) } : { name, path: target, found };
}

/** The storage folder and each workspace's chat folder, found or not. */
function sourcesOf(storage: string | undefined, folders: readonly string[], reader: SourceReader): SourceStatus[] {
  if (!storage) return [];
  return [
    statusOf('workspace_storage', storage, reader.isDir(storage)),
    ...folders.map((folder) => statusOf('copilot_chat', folder, true)),
  ];
}

export async function exportCopilotVscode(
  environment: ExportEnvironment,
  wslUsers = WSL_USERS,
): Promise<ParticipantExport> {
  const reader = readerFor(environment, wslUsers);
  const storage = storageDir(environment, reader, wslUsers);
  const folders = chatFolders(reader, storage);

  const transcripts: Transcript[] = [];
  const memories: Entity[] = [];
  for (const folder of folders) {
    const dir = path.join(folder, 'transcripts');
    for (const name of reader.list(dir, { order: 'listing' })) {
      if (!name.endsWith('.jsonl')) continue;
      const transcript = readTranscript(reader, path.join(dir, name));
      if (transcript) transcripts.push(transcript);
    }
    const memoriesDir = path.join(folder, 'memory-tool', 'memories');
    for (const parts of reader.walk(memoriesDir, (name) => name.endsWith('.md'))) {
      const entity = memoryEntity(reader, path.join(memoriesDir, ...parts), parts);
      if (entity) memories.push(entity);
    }
  }
  // Newest start first, as text; the sort is stable, so ties keep listing order; undated ('') last.
  const sorted = [...transcripts].sort((a, b) => compareCodePoints(b.startTime, a.startTime));
  const since = sinceRules(environment);
  const sessions = sorted.map(sessionOf).filter((session) => since.keepDayOrUndated(session.date));

  const manifest = assembleManifest({
    agent: {
      id: AGENT_ID,
      type: 'code-assistant',
      instance: environment.hostname,
      spec_version_compat: '>=0.1',
      role_narrative: ROLE_NARRATIVE,
    },
    now: environment.now,
    capabilities: CAPABILITIES,
    sessions,
    entities: [...memories, ...commandEntities(sorted)],
    policy: POLICY,
  });
  return { manifest, sources: sourcesOf(storage, folders, reader), warnings: reader.warnings };
}

export const copilotVscodeParticipant: Participant = {
  agentId: AGENT_ID,
  // The workspace storage folder (each chat folder is inside it): workspace.json, transcripts, memory notes.
  watch: { follow: 'sources', except: ['copilot_chat'], files: /(?:workspace\.json|\.jsonl|\.md)$/ },
  topic: 'copilot-vscode',
  help: {
    summary: 'Publish Copilot Chat in VS Code as the copilot-vscode manifest.',
    reads:
      "Reads VS Code's workspaceStorage ($COPILOT_VSCODE_STORAGE; else on Linux the first /mnt/c/Users/<user>/AppData/Roaming/Code/User/workspaceStorage under WSL, then $XDG_CONFIG_HOME/Code/User/workspaceStorage, then ~/.config/Code/User/workspaceStorage; macOS ~/Library/Application Support/Code/User/workspaceStorage; Windows %APPDATA%\\Code\\User\\workspaceStorage): in each workspace's GitHub.copilot-chat folder, the first 500 lines of every transcripts/*.jsonl (start time, first message, turns, version, mode; assistant replies are never read) and the memory-tool/memories/**/*.md notes. Nothing found gives an empty manifest.",
  },
  async sources(environment) {
    const reader = readerFor(environment, WSL_USERS);
    const storage = storageDir(environment, reader, WSL_USERS);
    return sourcesOf(storage, chatFolders(reader, storage), reader);
  },
  export: (environment) => exportCopilotVscode(environment),
};
