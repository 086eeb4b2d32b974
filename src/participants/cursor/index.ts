/**
 * The Cursor participant: sessions and workspace projects from the editor's `state.vscdb`
 * databases (`ItemTable` key/value rows), recurring topics inferred from them, and the curated
 * topics of `memory/short-index.json`. Databases are read through a copy (sqlite.ts), never opened
 * in place; one that cannot be read is reported and the others still export.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../participant.js';
import { openReadOnly, type ReadOnlyDatabase } from '../sqlite.js';
import {
  AGENT_KEYS,
  ENTITY_KEYS,
  type Entity,
  MANIFEST_KEYS,
  POLICY_KEYS,
  SESSION_KEYS,
  SPEC_VERSION,
  federationFilter,
  isoSeconds,
  shaped,
  utcDate,
} from '../manifest-shape.js';
import { type CursorSession, inferEntities, rowToSession, sortSessions } from './records.js';
import { shortIndexEntities } from './short-index.js';
import { compareCodePoints } from '../python-values.js';

const AGENT_ID = 'cursor';
const ROLE_NARRATIVE =
  'AI-first code editor. Bourdon reads its local composer and chat state (SQLite) for recent ' +
  'sessions and the workspaces they ran in, plus the topics kept in its memory index.';
const POLICY = {
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
  readonly shortIndex: string;
}

function locate(environment: ExportEnvironment): Located {
  const { env, home, cwd, platform } = environment;
  const override = env.CURSOR_DIR ? path.resolve(cwd, env.CURSOR_DIR) : undefined;
  let dataDir = override;
  if (!dataDir && platform === 'darwin') dataDir = path.join(home, 'Library', 'Application Support', 'Cursor');
  else if (!dataDir && platform === 'win32') dataDir = env.APPDATA ? path.join(env.APPDATA, 'Cursor') : undefined;
  else if (!dataDir) dataDir = path.join(home, '.config', 'Cursor');
  return { dataDir, shortIndex: path.join(override ?? path.join(home, '.cursor'), 'memory', 'short-index.json') };
}

async function statOf(file: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(file);
  } catch {
    return undefined;
  }
}

/** The state databases in the engine's order: the root one, the global one, then each workspace's. */
async function stateDatabases(dataDir: string): Promise<string[]> {
  const candidates = [path.join(dataDir, 'state.vscdb'), path.join(dataDir, 'User', 'globalStorage', 'state.vscdb')];
  const workspaces = path.join(dataDir, 'User', 'workspaceStorage');
  if ((await statOf(workspaces))?.isDirectory()) {
    const children = await readdir(workspaces).catch(() => [] as string[]);
    // Code-point order, as Python sorts names (JavaScript's default sort compares UTF-16 units).
    for (const child of children.sort(compareCodePoints)) candidates.push(path.join(workspaces, child, 'state.vscdb'));
  }
  const found: string[] = [];
  for (const candidate of candidates) if ((await statOf(candidate))?.isFile()) found.push(candidate);
  return found;
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
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Sessions from one database; a database that cannot be read adds a warning instead. */
async function readDatabase(file: string, today: string, warnings: string[]): Promise<CursorSession[]> {
  let db: ReadOnlyDatabase;
  try {
    db = await openReadOnly(file);
  } catch (error) {
    warnings.push(`cursor: skipped ${(error as Error).message}`);
    return [];
  }
  const sessions: CursorSession[] = [];
  try {
    if (!db.tables().has('ItemTable')) return [];
    for (const row of db.all('SELECT key, value FROM ItemTable')) {
      const session = rowToSession(rowKey(row.key), rowValue(row.value), today);
      if (session) sessions.push(session);
    }
  } catch (error) {
    warnings.push(`cursor: skipped ${file}: its ItemTable cannot be read: ${(error as Error).message.split('\n')[0]}`);
    return [];
  } finally {
    db.close();
  }
  return sessions;
}

async function readShortIndex(file: string, warnings: string[]): Promise<Entity[]> {
  const info = await statOf(file);
  if (!info?.isFile()) return [];
  if (info.size > MAX_SHORT_INDEX_BYTES) {
    warnings.push(`cursor: skipped ${file}: larger than ${MAX_SHORT_INDEX_BYTES} bytes`);
    return [];
  }
  try {
    return shortIndexEntities(await readFile(file, 'utf8'));
  } catch (error) {
    warnings.push(`cursor: skipped ${file}: ${(error as Error).message.split('\n')[0]}`);
    return [];
  }
}

async function sourceStatus(name: string, file: string): Promise<SourceStatus> {
  const info = await statOf(file);
  return info
    ? { name, path: file, found: true, modified: info.mtime.toISOString() }
    : { name, path: file, found: false };
}

async function sources(environment: ExportEnvironment): Promise<SourceStatus[]> {
  const { dataDir, shortIndex } = locate(environment);
  const result: SourceStatus[] = [];
  if (dataDir) {
    result.push(await sourceStatus('data_dir', dataDir));
    for (const db of (await statOf(dataDir))?.isDirectory() ? await stateDatabases(dataDir) : []) {
      result.push(await sourceStatus('state_db', db));
    }
  }
  result.push(await sourceStatus('short_index', shortIndex));
  return result;
}

async function exportCursor(environment: ExportEnvironment): Promise<ParticipantExport> {
  const warnings: string[] = [];
  const { dataDir, shortIndex } = locate(environment);
  const today = utcDate(environment.now);
  const read: CursorSession[] = [];
  if (dataDir && (await statOf(dataDir))?.isDirectory()) {
    for (const db of await stateDatabases(dataDir)) read.push(...(await readDatabase(db, today, warnings)));
  }
  // Entities come from every session; --since only trims the session list.
  const entities = inferEntities(read);
  const seen = new Set(entities.map((entity) => String(entity.name).toLowerCase()));
  for (const entity of await readShortIndex(shortIndex, warnings)) {
    const key = String(entity.name).toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    entities.push(entity);
  }
  const since = environment.since;
  const sessions = sortSessions(read).filter((session) => !since || session.date >= since);
  const manifest = shaped(
    {
      spec_version: SPEC_VERSION,
      agent: shaped(
        { id: AGENT_ID, type: 'code-assistant', spec_version_compat: SPEC_VERSION, role_narrative: ROLE_NARRATIVE },
        AGENT_KEYS,
      ),
      last_updated: isoSeconds(environment.now),
      capabilities: CAPABILITIES,
      recent_sessions: sessions.map((session) =>
        shaped(
          {
            date: session.date,
            cwd: session.cwd || undefined,
            key_actions: [session.action],
            files_touched: session.files,
          },
          SESSION_KEYS,
        ),
      ),
      known_entities: federationFilter(entities, POLICY.private_tags).map((entity) => shaped(entity, ENTITY_KEYS)),
      visibility_policy: shaped(POLICY, POLICY_KEYS),
    },
    MANIFEST_KEYS,
  );
  return { manifest, sources: await sources(environment), warnings };
}

export const cursorParticipant: Participant = {
  agentId: AGENT_ID,
  topic: 'cursor',
  help: {
    summary: "Publish Cursor's chat history as the cursor manifest.",
    reads:
      "Reads Cursor's state databases ($CURSOR_DIR, else the platform's Cursor data folder) read-only, and ~/.cursor/memory/short-index.json.",
  },
  sources,
  export: exportCursor,
};
