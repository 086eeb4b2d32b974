/**
 * The Cursor participant: sessions and workspace projects from the editor's `state.vscdb`
 * databases (`ItemTable` key/value rows), recurring topics inferred from them, and the curated
 * topics of `memory/short-index.json`. Everything is read through a SourceReader (files.ts), so a
 * database or index that is a link leading out of its folder is refused; databases are read
 * through a copy (core/native/sqlite.ts), never opened in place; one that cannot be read is
 * reported and the others still export.
 */
import path from 'node:path';
import { SourceReader, modifiedAt } from '../kit/source-reader.js';
import { sinceRules } from '../kit/since.js';
import { jsonValueOf } from '../kit/line-streams.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import type { ReadOnlyDatabase } from '../kit/sqlite.js';
import { assembleManifest, type Entity, type Policy, SPEC_VERSION, federationFilter } from '../kit/manifest-shape.js';
import { exportDay } from '../kit/stamp.js';
import { type CursorSession, inferEntities, rowToSession, sortSessions } from './records.js';
import { shortIndexEntities } from './short-index.js';

const AGENT_ID = 'cursor';
const ROLE_NARRATIVE =
  'AI-first code editor. Bourdon reads its local composer and chat state (SQLite) for recent ' +
  'sessions and the workspaces they ran in, plus the topics kept in its memory index.';
/** Cursor's own private tags (not the kit's PRIVATE_TAGS), as its engine exporter names them. */
const POLICY: Policy & { private_tags: readonly string[] } = {
  default: 'team',
  private_tags: ['personal', 'credential', 'secret'],
  team_tags: ['cursor', 'workspace', 'sqlite'],
};
const CAPABILITIES = ['composer-history', 'workspace-state'];
/** A short index larger than this is not Cursor's and is skipped. */
const MAX_SHORT_INDEX_BYTES = 16 * 1024 * 1024;

interface Located {
  /** The data directory, or undefined when the platform has none (Windows without APPDATA). */
  readonly dataDir: string | undefined;
  /** The folder holding `memory/short-index.json`: `$CURSOR_DIR`, else `~/.cursor`. */
  readonly memoryHome: string;
  readonly shortIndex: string;
  /**
   * Reads the sources confined: each to the first of them it asks about that holds it (the
   * data directory, the memory folder). A folder the user named ($CURSOR_DIR, $APPDATA) may lie
   * outside the home.
   */
  readonly reader: SourceReader;
}

function locate(environment: ExportEnvironment): Located {
  const { env, home, cwd, platform } = environment;
  const override = env.CURSOR_DIR ? path.resolve(cwd, env.CURSOR_DIR) : undefined;
  let dataDir = override;
  if (!dataDir && platform === 'darwin') dataDir = path.join(home, 'Library', 'Application Support', 'Cursor');
  else if (!dataDir && platform === 'win32') dataDir = env.APPDATA ? path.join(env.APPDATA, 'Cursor') : undefined;
  else if (!dataDir) dataDir = path.join(home, '.config', 'Cursor');
  const memoryHome = override ?? path.join(home, '.cursor');
  const reader = new SourceReader([home], { workingFolder: cwd });
  // Allowed, not given: each is still the source root the files below it must stay inside.
  if (dataDir) reader.allow(dataDir);
  reader.allow(memoryHome);
  return { dataDir, memoryHome, shortIndex: path.join(memoryHome, 'memory', 'short-index.json'), reader };
}

/** The state databases in the engine's order: the root one, the global one, then each workspace's. */
function stateDatabases(reader: SourceReader, dataDir: string): string[] {
  // The data directory first: it is the source root every database must stay inside.
  if (!reader.isDir(dataDir)) return [];
  const candidates = [path.join(dataDir, 'state.vscdb'), path.join(dataDir, 'User', 'globalStorage', 'state.vscdb')];
  const workspaces = path.join(dataDir, 'User', 'workspaceStorage');
  // In code-point order, as Python sorts names.
  for (const child of reader.list(workspaces)) candidates.push(path.join(workspaces, child, 'state.vscdb'));
  return candidates.filter((candidate) => reader.isFile(candidate));
}

function rowKey(key: unknown): unknown {
  return key instanceof Uint8Array ? `b'${Buffer.from(key).toString('utf8')}'` : key;
}

/** The JSON a row's value holds (TEXT, or a BLOB of UTF-8 text), or undefined when it holds none. */
function rowValue(value: unknown): unknown {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array)
    text = Buffer.from(value)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  else return undefined;
  return jsonValueOf(text);
}

/** Sessions from one database; a database that cannot be read adds a warning instead. */
async function readDatabase(reader: SourceReader, file: string, today: string): Promise<CursorSession[]> {
  let db: ReadOnlyDatabase | null;
  try {
    db = await reader.openDatabase(file);
  } catch (error) {
    reader.warn(`cursor: skipped ${(error as Error).message}`);
    return [];
  }
  if (!db) return [];
  const sessions: CursorSession[] = [];
  try {
    if (!db.tables().has('ItemTable')) return [];
    // Row by row (in batches from SQLite): only the sessions are kept, not the values they came from.
    for (const row of db.rows('SELECT key, value FROM ItemTable')) {
      const session = rowToSession(rowKey(row.key), rowValue(row.value), today);
      if (session) sessions.push(session);
    }
  } catch (error) {
    reader.warn(`cursor: skipped ${file}: its ItemTable cannot be read: ${(error as Error).message.split('\n')[0]}`);
    return [];
  } finally {
    db.close();
  }
  return sessions;
}

/** Whether the short index may be read: the memory folder is asked first, so the index must stay inside it. */
function shortIndexReadable({ reader, memoryHome, shortIndex }: Located): boolean {
  return reader.isDir(memoryHome) && reader.isFile(shortIndex);
}

function readShortIndex(located: Located): Entity[] {
  const { reader, shortIndex } = located;
  if (!shortIndexReadable(located)) return [];
  const info = reader.stat(shortIndex);
  if (!info) return [];
  if (info.size > MAX_SHORT_INDEX_BYTES) {
    reader.warn(`cursor: skipped ${shortIndex}: larger than ${MAX_SHORT_INDEX_BYTES} bytes`);
    return [];
  }
  const text = reader.readText(shortIndex, MAX_SHORT_INDEX_BYTES);
  if (text === null) return [];
  try {
    return shortIndexEntities(text);
  } catch (error) {
    reader.warn(`cursor: skipped ${shortIndex}: ${(error as Error).message.split('\n')[0]}`);
    return [];
  }
}

function sourceStatus(reader: SourceReader, name: string, file: string): SourceStatus {
  const modified = reader.stat(file) ? modifiedAt(file) : undefined;
  return modified ? { name, path: file, found: true, modified } : { name, path: file, found: false };
}

function statuses(located: Located): SourceStatus[] {
  const { dataDir, shortIndex, reader } = located;
  const result: SourceStatus[] = [];
  if (dataDir) {
    result.push(sourceStatus(reader, 'data_dir', dataDir));
    for (const db of stateDatabases(reader, dataDir)) result.push(sourceStatus(reader, 'state_db', db));
  }
  const index = shortIndexReadable(located);
  result.push(
    index ? sourceStatus(reader, 'short_index', shortIndex) : { name: 'short_index', path: shortIndex, found: false },
  );
  return result;
}

async function sources(environment: ExportEnvironment): Promise<SourceStatus[]> {
  return statuses(locate(environment));
}

async function exportCursor(environment: ExportEnvironment): Promise<ParticipantExport> {
  const located = locate(environment);
  const { dataDir, reader } = located;
  const today = exportDay(environment.now);
  const read: CursorSession[] = [];
  if (dataDir) {
    for (const db of stateDatabases(reader, dataDir)) read.push(...(await readDatabase(reader, db, today)));
  }
  // Entities come from every session; --since only trims the session list.
  const entities = inferEntities(read);
  const seen = new Set(entities.map((entity) => String(entity.name).toLowerCase()));
  for (const entity of readShortIndex(located)) {
    const key = String(entity.name).toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    entities.push(entity);
  }
  const since = sinceRules(environment);
  const sessions = sortSessions(read).filter((session) => since.keepDay(session.date));
  const manifest = assembleManifest({
    agent: { id: AGENT_ID, type: 'code-assistant', spec_version_compat: SPEC_VERSION, role_narrative: ROLE_NARRATIVE },
    now: environment.now,
    capabilities: CAPABILITIES,
    sessions: sessions.map((session) => ({
      date: session.date,
      cwd: session.cwd || undefined,
      key_actions: [session.action],
      files_touched: session.files,
    })),
    entities: federationFilter(entities, POLICY.private_tags),
    policy: POLICY,
  });
  return { manifest, sources: statuses(located), warnings: reader.warnings };
}

export const cursorParticipant: Participant = {
  agentId: AGENT_ID,
  // The state databases in Cursor's data folder (not its caches and logs) and the short index.
  watch: { follow: 'sources', files: /(?:state\.vscdb(?:-wal|-journal)?|short-index\.json)$/ },
  topic: 'cursor',
  help: {
    summary: "Publish Cursor's chat history as the cursor manifest.",
    reads:
      "Reads Cursor's state databases ($CURSOR_DIR, else the platform's Cursor data folder) read-only, and ~/.cursor/memory/short-index.json.",
  },
  sources,
  export: exportCursor,
};
