/**
 * The GitHub Copilot CLI participant: sessions (with their checkpoints, turns, refs and files)
 * and repositories from `session-store.db`, plus the dynamic context items the CLI learns per
 * repository. The database is read through a SourceReader (files.ts): it, its write-ahead log
 * and its journal must stay inside the CLI's folder (a link leading out is refused), and it is
 * read through a copy (core/native/sqlite.ts), WAL included, never in place. A missing table
 * contributes nothing; a table the queries cannot read is reported.
 */
import path from 'node:path';
import type { SqlValue } from 'sql.js';
import { SourceReader, modifiedAt } from '../kit/source-reader.js';
import { sinceRules } from '../kit/since.js';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { boundText, scrubNativeText } from '../kit/scrub.js';
import { ReadTimeout, type ReadOnlyDatabase, type Row } from '../kit/sqlite.js';
import {
  assembleManifest,
  type Entity,
  type Manifest,
  type Policy,
  PRIVATE_TAGS,
  type Session,
  SPEC_VERSION,
  federationFilter,
} from '../kit/manifest-shape.js';

const AGENT_ID = 'copilot-cli';
const ROLE_NARRATIVE =
  'GitHub Copilot in the terminal: multi-turn sessions that edit files, run shell commands and ' +
  'commit, with checkpoints along the way. Bourdon reads its local session store (SQLite) for ' +
  'recent sessions, the repositories they touched and the context it learned per repository.';
const POLICY: Policy = {
  default: 'team',
  private_tags: PRIVATE_TAGS,
  team_tags: ['copilot-cli', 'copilot', 'terminal', 'workspace'],
};
const CAPABILITIES = [
  'terminal-agent',
  'file-edit',
  'shell-execution',
  'git-operations',
  'multi-turn-sessions',
  'checkpoints',
  'dynamic-context',
];
const SESSION_ROWS = 200;
const SESSIONS_EXPORTED = 100;
const KEY_ACTIONS = 6;
const KEY_ACTION_LIMIT = 280;
const SUMMARY_LIMIT = 260;

interface Located {
  /** The CLI's folder: `$COPILOT_CLI_HOME`, else `~/.copilot`. */
  readonly folder: string;
  readonly database: string;
  /** Reads the database confined to the CLI's folder, which may lie outside the home when the user named it. */
  readonly reader: SourceReader;
}

function locate({ env, home, cwd }: ExportEnvironment): Located {
  const folder = env.COPILOT_CLI_HOME ? path.resolve(cwd, env.COPILOT_CLI_HOME) : path.join(home, '.copilot');
  const reader = new SourceReader([home], { workingFolder: cwd });
  // Allowed, not given: the folder stays the source root the database must lie inside.
  reader.allow(folder);
  return { folder, database: path.join(folder, 'session-store.db'), reader };
}

/** Whether the session store may be read: the folder is asked first, so the store must stay inside it. */
function storeReadable({ reader, folder, database }: Located): boolean {
  return reader.isDir(folder) && reader.isFile(database);
}

/** Python's `str()` of a column value (text, number, NULL). */
function text(value: SqlValue | undefined): string {
  if (value === null || value === undefined) return 'None';
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return String(value);
}

/** A column value that counts as present (Python truthiness: not NULL, not '', not 0). */
function present(value: SqlValue | undefined): value is string | number | Uint8Array {
  return value !== null && value !== undefined && value !== '' && value !== 0;
}

/**
 * Queries that never throw: a missing table gives no rows; any other failure is warned once per
 * table. A database that ran out of its time budget is abandoned: one warning for the database,
 * and every later query gives no rows without trying (one cause, one warning).
 */
function querier(db: ReadOnlyDatabase, file: string, warn: (message: string) => void) {
  const tables = new Set([...db.tables()].map((name) => name.toLowerCase()));
  const warned = new Set<string>();
  let abandoned = false;
  return (table: string, sql: string, params: SqlValue[] = []): Row[] => {
    if (abandoned || !tables.has(table)) return [];
    try {
      return db.all(sql, params);
    } catch (error) {
      const reason = (error as Error).message.split('\n')[0];
      if (error instanceof ReadTimeout) {
        abandoned = true;
        warn(`copilot-cli: ${file}: ${reason}`);
      } else if (!warned.has(table)) {
        warned.add(table);
        warn(`copilot-cli: ${file}: table ${table} unreadable: ${reason}`);
      }
      return [];
    }
  };
}

/**
 * Each session's number of turns (`ids` as the sessions give them), in one pass over `turns`:
 * the engine asks `SELECT COUNT(*) FROM turns WHERE session_id = ?` once per session, a scan of
 * the largest table each time when it has no index (a 43 MB store: a million page reads). The
 * answer is the same: each id is bound as that query binds it and compared through `+ids.k`, an
 * expression with no affinity and the column's collation, exactly as a bound parameter is
 * compared (https://www.sqlite.org/datatype3.html, "Type Conversions Prior To Comparison").
 */
function turnCounts(query: ReturnType<typeof querier>, ids: readonly SqlValue[]): number[] {
  const counts = ids.map(() => 0);
  if (ids.length === 0) return counts;
  const values = ids.map((_, n) => `(${n}, ?)`).join(', ');
  const rows = query(
    'turns',
    `WITH ids(n, k) AS (VALUES ${values}) ` +
      'SELECT ids.n AS n, COUNT(*) AS cnt FROM ids CROSS JOIN turns WHERE session_id = +ids.k GROUP BY ids.n',
    [...ids],
  );
  for (const row of rows) counts[Number(row.n)] = Number(row.cnt);
  return counts;
}

/** A session's row as the manifest shows it; `turnsOf` asked after its other tables, as the engine asks. */
function sessionOf(query: ReturnType<typeof querier>, raw: Row, turnsOf: () => number): Session {
  const id = raw.id ?? null;
  const files = query('session_files', 'SELECT file_path FROM session_files WHERE session_id = ? LIMIT 20', [id])
    .map((row) => row.file_path)
    .filter(present)
    .map(text);
  const refs = query('session_refs', 'SELECT ref_type, ref_value FROM session_refs WHERE session_id = ?', [id]);
  const checkpoints = query(
    'checkpoints',
    'SELECT checkpoint_number, title, overview FROM checkpoints WHERE session_id = ? ORDER BY checkpoint_number',
    [id],
  );
  const turns = turnsOf();

  const actions: string[] = [];
  if (present(raw.summary)) actions.push(boundText(scrubNativeText(text(raw.summary)), KEY_ACTION_LIMIT));
  for (const checkpoint of checkpoints.slice(0, 3)) {
    if (present(checkpoint.title)) {
      actions.push(boundText(`checkpoint: ${scrubNativeText(text(checkpoint.title))}`, KEY_ACTION_LIMIT));
    }
  }
  if (turns) actions.push(`turns: ${turns}`);
  for (const ref of refs.slice(0, 3)) {
    actions.push(boundText(`${text(ref.ref_type)}: ${text(ref.ref_value)}`, KEY_ACTION_LIMIT));
  }
  const created = present(raw.created_at) ? text(raw.created_at) : '';
  return {
    date: [...created].slice(0, 10).join(''),
    cwd: present(raw.cwd) ? text(raw.cwd) : undefined,
    project_focus: present(raw.repository) ? [text(raw.repository)] : [],
    key_actions: actions.slice(0, KEY_ACTIONS),
    files_touched: files.slice(0, 20),
    visibility: 'team',
  };
}

/** Repositories in session order, then dynamic context items by use, skipping names already taken. */
function entitiesOf(rows: readonly Row[], contextItems: readonly Row[]): Entity[] {
  const entities = new Map<string, Entity>();
  for (const raw of rows) {
    if (!present(raw.repository) || entities.has(text(raw.repository))) continue;
    const name = text(raw.repository);
    const created = present(raw.created_at) ? [...text(raw.created_at)].slice(0, 10).join('') : '';
    entities.set(name, {
      name,
      type: 'project',
      summary: 'Repository worked on via Copilot CLI.',
      last_touched: created || undefined,
      tags: ['copilot-cli', 'project'],
      visibility: 'team',
    });
  }
  for (const item of contextItems) {
    if (!present(item.name) || entities.has(text(item.name))) continue;
    const name = text(item.name);
    const source = present(item.description) ? item.description : present(item.content) ? item.content : '';
    entities.set(name, {
      name,
      type: 'dynamic-context',
      summary: source === '' ? undefined : boundText(scrubNativeText(text(source)), SUMMARY_LIMIT) || undefined,
      tags: ['copilot-cli', 'dynamic-context', present(item.src) ? text(item.src) : 'unknown'],
      visibility: 'team',
    });
  }
  return [...entities.values()];
}

/** The manifest: what was read (nothing when the store is missing), the agent and the policy. */
function manifestOf(
  environment: ExportEnvironment,
  read: { capabilities?: readonly string[]; sessions?: readonly Session[]; entities?: readonly Entity[] },
): Manifest {
  return assembleManifest({
    agent: {
      id: AGENT_ID,
      type: 'code-assistant',
      instance: environment.hostname || 'unknown',
      spec_version_compat: `>=${SPEC_VERSION}`,
      role_narrative: ROLE_NARRATIVE,
    },
    now: environment.now,
    ...read,
    policy: POLICY,
  });
}

function statuses(located: Located): SourceStatus[] {
  const { database } = located;
  const modified = storeReadable(located) ? modifiedAt(database) : undefined;
  return [
    modified
      ? { name: 'session_store', path: database, found: true, modified }
      : { name: 'session_store', path: database, found: false },
  ];
}

async function sources(environment: ExportEnvironment): Promise<SourceStatus[]> {
  return statuses(locate(environment));
}

async function exportCopilotCli(environment: ExportEnvironment): Promise<ParticipantExport> {
  const located = locate(environment);
  const { database: file, reader } = located;
  // No store (or one that leads out of the folder): the engine still writes a manifest, with nothing in it.
  if (!storeReadable(located))
    return { manifest: manifestOf(environment, {}), sources: statuses(located), warnings: reader.warnings };

  let rows: Row[] = [];
  let contextItems: Row[] = [];
  let sessions: Session[] = [];
  let db: ReadOnlyDatabase | null = null;
  try {
    db = await reader.openDatabase(file);
  } catch (error) {
    reader.warn(`copilot-cli: skipped ${(error as Error).message}`);
  }
  if (db) {
    try {
      const query = querier(db, file, (message) => reader.warn(message));
      const dayStart = sinceRules(environment).dayStart();
      const since = dayStart === undefined ? [] : [dayStart];
      rows = query(
        'sessions',
        'SELECT id, cwd, repository, branch, summary, created_at, updated_at FROM sessions' +
          (since.length ? ' WHERE created_at >= ?' : '') +
          ` ORDER BY created_at DESC LIMIT ${SESSION_ROWS}`,
        since,
      );
      contextItems = query(
        'dynamic_context_items',
        'SELECT repository, branch, src, name, description, content, read_count, count ' +
          'FROM dynamic_context_items ORDER BY count DESC LIMIT 50',
      );
      const exported = rows.slice(0, SESSIONS_EXPORTED);
      // Counted together when the first session asks, so a warning comes in the engine's order.
      let turns: number[] | undefined;
      const turnsOf = (n: number): number =>
        (turns ??= turnCounts(
          query,
          exported.map((raw) => raw.id ?? null),
        ))[n]!;
      sessions = exported.map((raw, n) => sessionOf(query, raw, () => turnsOf(n)));
    } finally {
      db.close();
    }
  }
  const manifest = manifestOf(environment, {
    capabilities: CAPABILITIES,
    sessions,
    entities: federationFilter(entitiesOf(rows, contextItems), PRIVATE_TAGS),
  });
  return { manifest, sources: statuses(located), warnings: reader.warnings };
}

export const copilotCliParticipant: Participant = {
  agentId: AGENT_ID,
  watch: { follow: 'sources' },
  topic: 'copilot-cli',
  help: {
    summary: "Publish Copilot CLI's sessions as the copilot-cli manifest.",
    reads:
      "Reads Copilot CLI's session store ($COPILOT_CLI_HOME/session-store.db or ~/.copilot/session-store.db) read-only.",
  },
  sources,
  export: exportCopilotCli,
};
