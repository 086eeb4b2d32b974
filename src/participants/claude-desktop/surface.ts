/**
 * What the two Claude desktop surfaces (GUI Claude Code and Co-Work / local-agent mode) share
 * (conformance/participants/README.md, "claude_desktop_code" and "claude_desktop_cowork"): the
 * desktop folder, the store of per-conversation state files two folder levels down, the
 * metadata read from each (date, labels, MCP tool count, projects), the `--since` cut and
 * order, and the manifest around them. Each surface (code.ts, cowork.ts) adds only what is its
 * own: its store's name, its wording, its key actions and capabilities, and anything more it
 * reads per conversation. Only metadata is read: no message, prompt or answer text.
 */
import os from 'node:os';
import path from 'node:path';
import { compareCodePoints } from '../../core/native/python-values.js';
import { SourceReader, modifiedAt } from '../kit/source-reader.js';
import { pyStr, truthy } from '../../core/python-str.js';
import type {
  ExportEnvironment,
  Participant,
  ParticipantExport,
  ParticipantHelp,
  SourceStatus,
} from '../kit/participant.js';
import { addProjectHints } from '../kit/project-hints.js';
import { assembleManifest, PRIVATE_TAGS, type Entity, type Session } from '../kit/manifest-shape.js';
import { sinceRules } from '../kit/since.js';
import { pyStrip, scrubNativeText } from '../kit/scrub.js';
import { posixName, pyFloatOf, utcDateOfEpoch } from '../kit/values.js';

/** A conversation's state, parsed: a JSON object. */
export type State = Readonly<Record<string, unknown>>;

/** One conversation (or run) as both surfaces read it, plus what its surface reads (`extra`). */
export interface Conversation<Extra> {
  /** For ordering only: `sessionId` as text, else the file name without `.json`. */
  readonly id: string;
  /** `YYYY-MM-DD` (UTC), or '' when the state has no usable time. */
  readonly date: string;
  /** The scrubbed labels; '' when absent. */
  readonly cwd: string;
  readonly title: string;
  readonly model: string;
  readonly permission: string;
  /** How many of `enabledMcpTools` are on. */
  readonly mcpTools: number;
  readonly projects: readonly string[];
  readonly extra: Extra;
}

/** What one surface adds to the shared reading. */
export interface Surface<Extra> {
  readonly agentId: string;
  /** How `bourdon <agent-id> export` presents it. */
  readonly help: ParticipantHelp;
  /** The store folder under the desktop folder (`claude-code-sessions`). */
  readonly store: string;
  /** The store's name in doctor and `--json` (`claude_code_sessions`). */
  readonly sourceName: string;
  /** The surface's own tag (`claude-desktop-code`). */
  readonly tag: string;
  readonly roleNarrative: string;
  /** The surface entity's name and summary, and the summary of the projects it infers. */
  readonly entityName: string;
  readonly entitySummary: string;
  readonly projectSummary: string;
  /** The title of a conversation without one. */
  readonly untitled: string;
  /** What else the surface reads for one conversation (`file` is its state file). */
  extra(state: State, file: string, reader: SourceReader): Extra;
  /** A session's key actions. */
  keyActions(conversation: Conversation<Extra>): string[];
  /** Capabilities after `<tag>` and `mcp-tools:N`, over the conversations kept. */
  capabilities(kept: readonly Conversation<Extra>[]): string[];
}

/** The scrubber's limits for each label read from the state. */
const CWD_LIMIT = 300;
const TITLE_LIMIT = 160;
const MODEL_LIMIT = 80;
const PERMISSION_LIMIT = 40;
/** The limits of the engine's second scrub of each key action (`model: …` is longer than the model). */
export const ACTION_LIMITS = { title: 160, model: 120, effort: 60, permission: 80 } as const;
const MAX_PROJECTS = 6;
/** Epoch values above this are milliseconds. */
const MILLISECONDS_ABOVE = 1e12;
const STATE_FILE = /^local_.*\.json$/s;

/**
 * The desktop app's folder: $BOURDON_CLAUDE_DESKTOP_DIR when set (the default is then not
 * looked at), else the platform's application-data folder for Claude.
 */
export function desktopDir({ env, home, cwd, platform }: ExportEnvironment): string {
  const named = env.BOURDON_CLAUDE_DESKTOP_DIR;
  if (named) return path.resolve(cwd, named.startsWith('~/') ? path.join(home, named.slice(2)) : named);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude');
  if (platform === 'win32')
    return env.APPDATA ? path.join(env.APPDATA, 'Claude') : path.join(home, 'AppData', 'Roaming', 'Claude');
  return path.join(home, '.config', 'Claude');
}

/** A label: the value as text, trimmed (null → ''), then scrubbed at `limit`. */
export function label(value: unknown, limit: number): string {
  return value === null || value === undefined ? '' : scrubNativeText(pyStrip(pyStr(value)), limit);
}

/** `<prefix>: <value>` scrubbed once more at `limit` (the engine's second pass), or nothing when the value is empty. */
export function labelled(prefix: string, value: string, limit: number): string[] {
  return value ? [scrubNativeText(`${prefix}: ${value}`, limit)] : [];
}

/** The title as a key action: scrubbed once more, as the engine does. */
export function titleAction(title: string): string {
  return scrubNativeText(title, ACTION_LIMITS.title);
}

/** `mcp-tools: N` when any MCP tool was on. */
export function mcpAction(count: number): string[] {
  return count > 0 ? [`mcp-tools: ${count}`] : [];
}

/** The largest of `counts`, 0 when there are none. */
export function largest(counts: readonly number[]): number {
  return counts.reduce((max, count) => (count > max ? count : max), 0);
}

/** A time value: a number (not a boolean), or a string Python's float() reads once trimmed. */
function epochValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return pyFloatOf(pyStrip(value));
  return undefined;
}

/** The UTC date of `createdAt`, else of `lastActivityAt`; '' when neither is usable. */
function conversationDate(state: State): string {
  for (const key of ['createdAt', 'lastActivityAt']) {
    const value = epochValue(state[key]);
    const date = value === undefined ? undefined : utcDateOfEpoch(value, MILLISECONDS_ABOVE);
    if (date !== undefined) return date;
  }
  return '';
}

/**
 * Projects from the raw (unscrubbed) state: the cwd's and each selected folder's last path
 * component, then the project hints found in those paths; case-insensitive duplicates left
 * out, at most six.
 */
function projectsOf(state: State): string[] {
  const paths: string[] = [];
  if (typeof state.cwd === 'string' && pyStrip(state.cwd)) paths.push(state.cwd);
  if (Array.isArray(state.userSelectedFolders)) {
    for (const folder of state.userSelectedFolders)
      if (typeof folder === 'string' && pyStrip(folder)) paths.push(folder);
  }
  const projects: string[] = [];
  for (const folder of paths) {
    const name = pyStrip(posixName(pyStrip(folder)));
    if (!name || name === '.' || name === '/' || name === '\\') continue;
    if (!projects.some((seen) => seen.toLowerCase() === name.toLowerCase())) projects.push(name);
  }
  return addProjectHints(paths.join(' ').toLowerCase(), projects).slice(0, MAX_PROJECTS);
}

function mcpToolCount(state: State): number {
  const tools = state.enabledMcpTools;
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools)) return 0;
  return Object.values(tools).filter((on) => on === true).length;
}

function readConversation<Extra>(
  surface: Surface<Extra>,
  reader: SourceReader,
  file: string,
): Conversation<Extra> | undefined {
  const parsed = reader.readJson(file);
  if (!parsed) return undefined;
  const state = parsed.value;
  if (state === null || typeof state !== 'object' || Array.isArray(state)) {
    reader.warn(`${file}: skipped, not a JSON object`);
    return undefined;
  }
  const fields = state as State;
  return {
    id: truthy(fields.sessionId) ? pyStr(fields.sessionId) : path.basename(file).slice(0, -'.json'.length),
    date: conversationDate(fields),
    cwd: label(fields.cwd, CWD_LIMIT),
    title: label(fields.title, TITLE_LIMIT) || surface.untitled,
    model: label(fields.model, MODEL_LIMIT),
    permission: label(fields.permissionMode, PERMISSION_LIMIT),
    mcpTools: mcpToolCount(fields),
    projects: projectsOf(fields),
    extra: surface.extra(fields, file, reader),
  };
}

/** The state files `<store>/<account>/<org>/local_*.json`, in path order. */
function stateFiles(reader: SourceReader, store: string): string[] {
  const files: string[] = [];
  for (const account of reader.list(store)) {
    const accountDir = path.join(store, account);
    for (const org of reader.list(accountDir)) {
      const orgDir = path.join(accountDir, org);
      for (const name of reader.list(orgDir)) if (STATE_FILE.test(name)) files.push(path.join(orgDir, name));
    }
  }
  return files;
}

/** Newest first by (date, id) as text; ties keep file order. */
function byDateThenId<Extra>(a: Conversation<Extra>, b: Conversation<Extra>): number {
  return compareCodePoints(b.date, a.date) || compareCodePoints(b.id, a.id);
}

function sessionOf<Extra>(surface: Surface<Extra>, conversation: Conversation<Extra>): Session {
  return {
    date: conversation.date,
    cwd: conversation.cwd || undefined,
    project_focus: [...conversation.projects],
    key_actions: surface.keyActions(conversation),
    visibility: 'team',
  };
}

function entitiesOf<Extra>(surface: Surface<Extra>, kept: readonly Conversation<Extra>[]): Entity[] {
  const dates = kept.map((conversation) => conversation.date);
  const entities: Entity[] = [
    {
      name: surface.entityName,
      type: 'agent-surface',
      summary: surface.entitySummary,
      // The newest date as text: '' when every conversation is undated, none without conversations.
      last_touched: dates.length ? dates.reduce((max, date) => (date > max ? date : max)) : undefined,
      tags: ['claude-desktop', surface.tag, 'agent-surface'],
      visibility: 'team',
    },
  ];
  const names = new Set([surface.entityName]);
  for (const conversation of kept) {
    for (const project of conversation.projects) {
      if (names.has(project)) continue;
      names.add(project);
      entities.push({
        name: project,
        type: 'project',
        summary: surface.projectSummary,
        last_touched: conversation.date || undefined,
        tags: ['claude-desktop', surface.tag, 'project'],
        visibility: 'team',
      });
    }
  }
  return entities;
}

/** The participant publishing one desktop surface. */
export function desktopSurfaceParticipant<Extra>(surface: Surface<Extra>): Participant {
  const storeOf = (environment: ExportEnvironment) => path.join(desktopDir(environment), surface.store);
  const readerFor = (environment: ExportEnvironment) => {
    // A desktop folder the user named may live anywhere: it is theirs to point at.
    const reader = new SourceReader([environment.home]);
    if (environment.env.BOURDON_CLAUDE_DESKTOP_DIR) reader.allow(desktopDir(environment));
    return reader;
  };
  const statuses = (store: string, found: boolean): SourceStatus[] => [
    found
      ? { name: surface.sourceName, path: store, found, modified: modifiedAt(store) }
      : { name: surface.sourceName, path: store, found },
  ];

  async function exportSurface(environment: ExportEnvironment): Promise<ParticipantExport> {
    const reader = readerFor(environment);
    const store = storeOf(environment);
    if (!reader.isDir(store))
      return { manifest: undefined, sources: statuses(store, false), warnings: reader.warnings };

    const conversations = stateFiles(reader, store)
      .map((file) => readConversation(surface, reader, file))
      .filter((conversation): conversation is Conversation<Extra> => conversation !== undefined);
    const since = sinceRules(environment);
    const kept = conversations.filter((conversation) => since.keepDayOrUndated(conversation.date)).sort(byDateThenId);
    const manifest = assembleManifest({
      agent: {
        id: surface.agentId,
        type: 'code-assistant',
        instance: environment.hostname || os.hostname(),
        spec_version_compat: '0.1',
        role_narrative: surface.roleNarrative,
      },
      now: environment.now,
      capabilities: [
        surface.tag,
        `mcp-tools:${largest(kept.map((conversation) => conversation.mcpTools))}`,
        ...surface.capabilities(kept),
      ],
      sessions: kept.map((conversation) => sessionOf(surface, conversation)),
      entities: entitiesOf(surface, kept),
      policy: {
        default: 'team',
        private_tags: [...PRIVATE_TAGS],
        team_tags: ['claude-desktop', surface.tag, 'agent-surface', 'workspace'],
      },
      emptyLists: 'write',
    });
    return { manifest, sources: statuses(store, true), warnings: reader.warnings };
  }

  return {
    agentId: surface.agentId,
    watch: { follow: 'sources' },
    topic: surface.agentId,
    help: surface.help,
    async sources(environment) {
      const store = storeOf(environment);
      return statuses(store, readerFor(environment).isDir(store));
    },
    export: exportSurface,
  };
}
