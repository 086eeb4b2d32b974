/**
 * `bourdon doctor`: checks everything a server depends on and says, per check, whether it is
 * fine. Verdicts: `ok`; `info` (worth knowing, nothing wrong); `warn` (works, but probably not
 * as meant); `fail` (something is wrong: data is not read, a file is invalid, a write or a
 * peer call would fail). The command exits 1 when any check fails.
 *
 * Nothing here changes the library or the config, with one exception: the write-gate check
 * takes the gate and releases it at once (a lock folder created and removed), which is the only
 * way to know a writer would get it. No audit record is written (it would pollute the trail):
 * writability is checked with access(2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAccessLevel, rowVisibility } from '../trust/access.js';
import type { ConfigPaths, Env } from '../context.js';
import { dayOf } from '../store/dates.js';
import { BourdonError, describeError } from '../errors.js';
import { readOwner, withLibraryGate } from '../fs/gate.js';
import { L6Store, MANIFEST_SUFFIX, parseManifest, type LibrarySnapshot } from '../store/library.js';
import { AGENT_TYPES, asText, isObject, type RawObject } from '../store/manifest.js';
import { loadPeersFile, type PeerConfig } from '../federation/peers-config.js';
import { FederationRegistry } from '../trust/registry.js';
import { listStaged } from '../writes/staging.js';
import { trustedCacheStat } from '../store/parsed-cache.js';

export type Verdict = 'ok' | 'info' | 'warn' | 'fail';

export interface CheckResult {
  id: string;
  title: string;
  verdict: Verdict;
  summary: string;
  details: string[];
}

export interface DoctorReport {
  ok: boolean;
  library: string;
  config_dir: string;
  counts: Record<Verdict, number>;
  checks: CheckResult[];
}

interface PeerProbe {
  reachable: boolean;
  latency_ms: number | null;
  error: string | null;
}

interface DoctorOptions {
  libraryRoot: string;
  config: ConfigPaths;
  env: Env;
  now?: Date;
  /** Staged writes older than this many days fail the staging check. */
  staleDays?: number;
  /** Calls a peer; absent means reachability is not checked (--offline). */
  probePeer?: (peer: PeerConfig) => Promise<PeerProbe>;
  gateTimeoutMs?: number;
}

export const DEFAULT_STALE_DAYS = 7;

function check(id: string, title: string, verdict: Verdict, summary: string, details: string[] = []): CheckResult {
  return { id, title, verdict, summary, details };
}

function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** Runs every check. Never throws: a check that cannot run reports why as its verdict. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? new Date();
  const root = path.resolve(options.libraryRoot);
  const checks: CheckResult[] = [];
  const guarded = async (id: string, title: string, fn: () => CheckResult[] | Promise<CheckResult[]>) => {
    try {
      checks.push(...(await fn()));
    } catch (error) {
      checks.push(check(id, title, 'fail', `could not be checked: ${describeError(error)}`));
    }
  };

  const libraryOk = libraryExists(root, checks);
  if (libraryOk) {
    const store = new L6Store(root, { warn: () => {}, keepDocuments: true });
    await guarded('manifests', 'manifests', () => manifestChecks(store));
    await guarded('gate', 'write gate', () => gateCheck(store, options.gateTimeoutMs ?? 1_500));
    await guarded('staging', 'staging', () => [stagingCheck(store, now, options.staleDays ?? DEFAULT_STALE_DAYS)]);
  }
  await guarded('config', 'config dir', () => [configDirCheck(options.config.home)]);
  await guarded('cache', 'parsed cache', () => [cacheCheck(path.join(options.config.home, 'cache'))]);
  await guarded('registry', 'registry', () => registryChecks(options.config.registry, options.env));
  await guarded('peers', 'peers', () => peersChecks(options.config.peers, options.env, options.probePeer));
  await guarded('audit', 'audit log', () => [auditCheck(options.config.audit)]);

  const counts: Record<Verdict, number> = { ok: 0, info: 0, warn: 0, fail: 0 };
  for (const result of checks) counts[result.verdict]++;
  return { ok: counts.fail === 0, library: root, config_dir: path.resolve(options.config.home), counts, checks };
}

// ---------------------------------------------------------------------------------------------
// Library and manifests

function libraryExists(root: string, checks: CheckResult[]): boolean {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    checks.push(
      check('library', 'library', 'fail', `${root} does not exist`, [
        'create it with `bourdon init` (or point --library / BOURDON_LIBRARY at yours)',
      ]),
    );
    return false;
  }
  if (!stat.isDirectory()) {
    checks.push(check('library', 'library', 'fail', `${root} is not a folder`));
    return false;
  }
  const agents = path.join(root, 'agents');
  if (!fs.existsSync(agents)) {
    checks.push(
      check('library', 'library', 'warn', `${root} has no agents/ folder: no manifest can be read`, [
        '`bourdon init` creates it',
      ]),
    );
    return true;
  }
  checks.push(check('library', 'library', 'ok', root));
  return true;
}

function manifestChecks(store: L6Store): CheckResult[] {
  const snapshot = store.snapshot();
  const out: CheckResult[] = [];
  const duplicates = duplicateFiles(store, snapshot);
  const total = snapshot.agents.length + snapshot.broken.length + duplicates.length;

  if (snapshot.broken.length) {
    out.push(
      check(
        'manifests',
        'manifests',
        'fail',
        `${plural(snapshot.broken.length, 'manifest')} of ${total} cannot be read: queries skip ${snapshot.broken.length === 1 ? 'it' : 'them'}`,
        snapshot.broken.map((item) => `agents/${item.file}: ${item.error.split('\n')[0]}`),
      ),
    );
  } else {
    out.push(
      check('manifests', 'manifests', 'ok', total ? `${plural(total, 'manifest')}, all readable` : 'no manifests yet'),
    );
  }

  out.push(
    duplicates.length
      ? check(
          'duplicates',
          'duplicate ids',
          'fail',
          `${plural(duplicates.length, 'file')} ${duplicates.length === 1 ? 'declares' : 'declare'} an agent id a later file (by name) also declares; ${duplicates.length === 1 ? 'it is' : 'they are'} skipped: the last file by name wins`,
          duplicates,
        )
      : check('duplicates', 'duplicate ids', 'ok', 'every agent id is declared once'),
  );

  const failures: string[] = [];
  const warnings: string[] = [];
  for (const record of snapshot.agents) {
    const problems = schemaProblems(store.document(record));
    for (const problem of problems.fail) failures.push(`agents/${record.file}: ${problem}`);
    for (const problem of problems.warn) warnings.push(`agents/${record.file}: ${problem}`);
  }
  if (failures.length) {
    out.push(
      check(
        'schema',
        'schema',
        'fail',
        `${plural(failures.length, 'violation')} that hide data from queries${warnings.length ? `, ${plural(warnings.length, 'other deviation')}` : ''}`,
        [...failures, ...warnings],
      ),
    );
  } else if (warnings.length) {
    out.push(
      check(
        'schema',
        'schema',
        'warn',
        `${plural(warnings.length, 'deviation')} from the L5 schema (the rows are still read)`,
        warnings,
      ),
    );
  } else {
    out.push(
      check(
        'schema',
        'schema',
        'ok',
        snapshot.agents.length ? 'every manifest follows the L5 schema' : 'nothing to check',
      ),
    );
  }
  return out;
}

/** Files that parsed but lost their id to a later file by name (the store keeps the last one per id). */
function duplicateFiles(store: L6Store, snapshot: LibrarySnapshot): string[] {
  const kept = new Set(snapshot.agents.map((agent) => agent.file));
  const broken = new Set(snapshot.broken.map((item) => item.file));
  let names: string[];
  try {
    names = fs
      .readdirSync(store.paths.agents)
      .filter((name) => name.endsWith(MANIFEST_SUFFIX))
      .sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const file of names) {
    if (kept.has(file) || broken.has(file)) continue;
    const full = path.join(store.paths.agents, file);
    try {
      const record = parseManifest(fs.readFileSync(full, 'utf8'), file, full);
      const owner = snapshot.byId.get(record.id);
      out.push(
        `agents/${file}: agent id ${JSON.stringify(record.id)} is already ${owner ? `in agents/${owner.file}` : 'taken'}`,
      );
    } catch {
      // changed since the snapshot; the next run sees it
    }
  }
  return out;
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Schema problems of one manifest (spec §2, L5 spec_version "0.1"). `fail`: rows or fields the
 * queries cannot read (they are silently left out). `warn`: deviations the reader tolerates.
 */
function schemaProblems(doc: RawObject): { fail: string[]; warn: string[] } {
  const fail: string[] = [];
  const warn: string[] = [];
  if (doc.spec_version === undefined) warn.push('no spec_version (expected "0.1")');
  else if (String(doc.spec_version) !== '0.1')
    warn.push(`spec_version ${JSON.stringify(doc.spec_version)} (this reader knows "0.1")`);
  if (!isObject(doc.agent)) {
    warn.push('no agent block (id taken from the file name, type unknown)');
  } else if (doc.agent.type === undefined || doc.agent.type === null) {
    warn.push('agent.type is missing');
  } else if (!(AGENT_TYPES as readonly unknown[]).includes(doc.agent.type)) {
    warn.push(`agent.type ${JSON.stringify(doc.agent.type)} is not one of ${AGENT_TYPES.join(', ')}`);
  }
  if (doc.last_updated === undefined || doc.last_updated === null) warn.push('no last_updated');
  else if (typeof doc.last_updated !== 'string' || !ISO_DATETIME.test(doc.last_updated.trim())) {
    warn.push(`last_updated ${JSON.stringify(doc.last_updated)} is not an ISO datetime`);
  }
  for (const field of ['capabilities', 'known_entities', 'recent_sessions', 'notes']) {
    const value = doc[field];
    if (value !== undefined && value !== null && !Array.isArray(value)) fail.push(`${field} is not a list (ignored)`);
  }
  const rows = (field: string) => (Array.isArray(doc[field]) ? (doc[field] as unknown[]) : []);
  rows('known_entities').forEach((row, index) => {
    const where = `known_entities[${index}]`;
    if (!isObject(row)) return fail.push(`${where} is not a mapping (ignored)`);
    if (typeof row.name !== 'string' || !row.name.trim()) fail.push(`${where} has no name (ignored)`);
    visibilityProblem(row, where, warn);
  });
  rows('recent_sessions').forEach((row, index) => {
    const where = `recent_sessions[${index}]`;
    if (!isObject(row)) return fail.push(`${where} is not a mapping (ignored)`);
    const date = asText(row.date);
    if (!date?.trim()) {
      fail.push(`${where} has no date and is not listed`);
    } else if (dayOf(date) === null) {
      fail.push(`${where} has no valid date (YYYY-MM-DD): undated, it is left out wherever a date window applies`);
    }
    visibilityProblem(row, where, warn);
  });
  rows('notes').forEach((row, index) => {
    const where = `notes[${index}]`;
    if (!isObject(row)) return fail.push(`${where} is not a mapping (ignored)`);
    if (dayOf(row.date) === null) fail.push(`${where} has no valid date and is not listed`);
    if (typeof row.text !== 'string' || !row.text.trim()) fail.push(`${where} has no text and is not listed`);
    visibilityProblem(row, where, warn);
  });
  return { fail, warn };
}

function visibilityProblem(row: RawObject, where: string, warn: string[]): void {
  const value = row.visibility;
  if (value === undefined || value === null || isAccessLevel(value)) return;
  const level = rowVisibility(value);
  // `TEAM` and ' team ' are read as team (labels are trimmed, case-insensitive): worth tidying, not a problem.
  if (typeof value === 'string' && value.trim().toLowerCase() === level) {
    warn.push(`${where}.visibility ${JSON.stringify(value)} is read as ${level}; write it as '${level}'`);
  } else {
    warn.push(`${where}.visibility ${JSON.stringify(value)} is unknown: read as private`);
  }
}

// ---------------------------------------------------------------------------------------------
// Write gate

async function gateCheck(store: L6Store, timeoutMs: number): Promise<CheckResult[]> {
  const { paths } = store;
  const details: string[] = [];
  const owner = readOwner(paths.lock);
  if (owner) details.push(`held before the check by pid ${owner.pid} on ${owner.host} since ${owner.acquired}`);
  const recovered: string[] = [];
  try {
    await withLibraryGate(paths, () => undefined, { timeoutMs, warn: (message) => recovered.push(message) });
  } catch (error) {
    const message = describeError(error);
    const busy = error instanceof BourdonError && error.code === 'busy';
    return [check('gate', 'write gate', busy ? 'warn' : 'fail', busy ? `busy: ${message}` : message, details)];
  }
  if (recovered.length)
    return [
      check('gate', 'write gate', 'warn', 'a lock left by a dead writer was found and removed', [
        ...details,
        ...recovered,
      ]),
    ];
  return [check('gate', 'write gate', 'ok', `writers can take ${paths.lock}`, details)];
}

// ---------------------------------------------------------------------------------------------
// Staging

function stagingCheck(store: L6Store, now: Date, staleDays: number): CheckResult {
  const staged = listStaged(store, now);
  if (staged.length === 0) return check('staging', 'staging', 'ok', 'nothing awaiting review');
  const unreadable = staged.filter((item) => item.error);
  const stale = staged.filter((item) => !item.error && item.age_days > staleDays);
  const details = [
    ...unreadable.map(
      (item) =>
        `staging/${item.caller}/${item.agent_id}${MANIFEST_SUFFIX}: ${item.error} — \`bourdon staging reject ${item.agent_id}\``,
    ),
    ...stale.map(
      (item) =>
        `staging/${item.caller}/${item.agent_id}${MANIFEST_SUFFIX}: staged by ${item.caller} ${Math.floor(item.age_days)} days ago — \`bourdon staging promote ${item.agent_id}\` or \`reject\``,
    ),
  ];
  if (unreadable.length || stale.length) {
    const parts = [
      stale.length ? `${plural(stale.length, 'staged write')} older than ${staleDays} days` : '',
      unreadable.length ? `${plural(unreadable.length, 'unreadable staged file')}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return check('staging', 'staging', 'fail', parts, details);
  }
  return check(
    'staging',
    'staging',
    'info',
    `${plural(staged.length, 'staged write')} awaiting review (\`bourdon staging list\`)`,
  );
}

// ---------------------------------------------------------------------------------------------
// Config dir, registry, auth

function configDirCheck(home: string): CheckResult {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(home);
  } catch {
    return check(
      'config',
      'config dir',
      'info',
      `${home} does not exist yet (\`bourdon init\` creates it; nothing needs it until members, peers or audit)`,
    );
  }
  if (!stat.isDirectory()) return check('config', 'config dir', 'fail', `${home} is not a folder`);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    return check(
      'config',
      'config dir',
      'warn',
      `${home} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}); \`chmod 700 ${home}\``,
    );
  }
  return check('config', 'config dir', 'ok', home);
}

/**
 * The parsed-library cache: every folder and file in it must be this user's and writable by no
 * one else. Queries already ignore any that is not (a miss, rebuilt from the manifest); doctor
 * fails so that someone looks at who could write there.
 */
function cacheCheck(dir: string): CheckResult {
  if (!fs.existsSync(dir)) return check('cache', 'parsed cache', 'ok', 'none yet');
  const untrusted: string[] = [];
  const walk = (at: string, depth: number) => {
    const stat = fs.lstatSync(at);
    if (!trustedCacheStat(stat)) untrusted.push(at);
    if (stat.isDirectory() && depth < 3) for (const name of fs.readdirSync(at)) walk(path.join(at, name), depth + 1);
  };
  walk(dir, 0);
  if (untrusted.length === 0) return check('cache', 'parsed cache', 'ok', dir);
  return check(
    'cache',
    'parsed cache',
    'fail',
    `${plural(untrusted.length, 'cache file')} not owned by you or writable by others (ignored by queries); remove ${dir} and check who can write to the config dir`,
    untrusted.slice(0, 10),
  );
}

function registryChecks(file: string, env: Env): CheckResult[] {
  const registry = new FederationRegistry(file, { warn: () => {} });
  const problem = registry.problem();
  const legacy = typeof env.BOURDON_PEER_TOKEN_SERVER === 'string' && env.BOURDON_PEER_TOKEN_SERVER.trim() !== '';
  if (problem) {
    return [
      check('registry', 'registry', 'fail', `${file} is unreadable: ${problem}`, [
        'no member can authenticate until it is fixed or moved',
      ]),
      check(
        'auth',
        'HTTP auth',
        legacy ? 'warn' : 'fail',
        legacy
          ? 'only the BOURDON_PEER_TOKEN_SERVER token authenticates (members cannot)'
          : 'no caller can authenticate over HTTP',
      ),
    ];
  }
  const members = registry.list();
  const out: CheckResult[] = [];
  const active = members.filter((member) => !member.revoked);
  const revoked = members.filter((member) => member.revoked);
  const idle = active.filter((member) => member.tier === 'quarantined' && member.grants.length === 0);
  if (!fs.existsSync(file)) {
    out.push(
      check('registry', 'registry', 'info', `no members yet (${file}); \`bourdon agent add <id>\` registers one`),
    );
  } else {
    const trusted = active.filter((member) => member.tier === 'trusted').length;
    const summary = `${plural(active.length, 'active member')} (${trusted} trusted, ${active.length - trusted} quarantined)${revoked.length ? `, ${revoked.length} revoked` : ''}`;
    const details = revoked.map(
      (member) =>
        `${member.agent_id}: revoked${member.revoked_at ? ` ${member.revoked_at}` : ''}; its token no longer authenticates`,
    );
    let mode = 0;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      // gone meanwhile
    }
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      out.push(
        check(
          'registry',
          'registry',
          'warn',
          `${summary}; the file is readable by other users (mode ${mode.toString(8)}): \`chmod 600 ${file}\``,
          details,
        ),
      );
    } else {
      out.push(check('registry', 'registry', 'ok', summary, details));
    }
  }
  if (idle.length) {
    out.push(
      check(
        'grants',
        'grants',
        'warn',
        `${plural(idle.length, 'quarantined member')} without grants can read nothing`,
        idle.map(
          (member) =>
            `${member.agent_id}: \`bourdon grant ${member.agent_id} <agent>\`, or \`bourdon agent set-tier ${member.agent_id} trusted\``,
        ),
      ),
    );
  }
  if (active.length || legacy) {
    const how = [
      active.length ? plural(active.length, 'member token') : '',
      legacy ? 'the BOURDON_PEER_TOKEN_SERVER token (operator)' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    out.push(
      check(
        'auth',
        'HTTP auth',
        'ok',
        `\`serve --transport http\` authenticates ${how}; a non-loopback bind (--host) may start`,
      ),
    );
  } else {
    out.push(
      check(
        'auth',
        'HTTP auth',
        'info',
        'not configured: stdio works; over HTTP every request gets 503 and a non-loopback bind refuses to start',
        ['`bourdon agent add <id>` registers a member with a token'],
      ),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Peers

async function peersChecks(file: string, env: Env, probe: DoctorOptions['probePeer']): Promise<CheckResult[]> {
  if (!fs.existsSync(file)) return [check('peers', 'peers', 'info', `no peers file (${file}): local only`)];
  let peers: PeerConfig[];
  try {
    peers = loadPeersFile(file);
  } catch (error) {
    return [
      check('peers', 'peers', 'fail', describeError(error), ['`serve --federate` refuses to start until it is fixed']),
    ];
  }
  if (peers.length === 0) return [check('peers', 'peers', 'info', `${file} lists no peers`)];
  const unset = peers.filter((peer) => !(env[peer.token_env] ?? '').trim());
  const out: CheckResult[] = [];
  out.push(
    unset.length
      ? check(
          'peers',
          'peers',
          'warn',
          `${plural(peers.length, 'peer')}; ${plural(unset.length, 'token variable')} not set in this shell`,
          unset.map((peer) => `${peer.name}: $${peer.token_env} is not set`),
        )
      : check('peers', 'peers', 'ok', `${plural(peers.length, 'peer')} in ${file}`),
  );
  if (!probe) {
    out.push(check('reachability', 'reachability', 'info', 'not checked (--offline)'));
    return out;
  }
  const results = await Promise.all(peers.map(async (peer) => ({ peer, result: await probe(peer) })));
  const down = results.filter(({ result }) => !result.reachable);
  const details = results.map(({ peer, result }) =>
    result.reachable
      ? `${peer.name}: reachable in ${result.latency_ms ?? '?'} ms`
      : `${peer.name}: unreachable (${result.error ?? 'no answer'})`,
  );
  out.push(
    down.length
      ? check(
          'reachability',
          'reachability',
          'fail',
          `${down.length} of ${plural(peers.length, 'peer')} unreachable`,
          details,
        )
      : check('reachability', 'reachability', 'ok', `every peer answered`, details),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------
// Audit

/** Whether the audit log can be appended to (or created), without writing a record. */
function auditCheck(file: string): CheckResult {
  if (fs.existsSync(file)) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch (error) {
      return check(
        'audit',
        'audit log',
        'fail',
        `${file} is not writable (${(error as NodeJS.ErrnoException).code ?? describeError(error)})`,
        ['calls are still answered, but rollbacks are refused until it is'],
      );
    }
    return check('audit', 'audit log', 'ok', `${file} is writable`);
  }
  // Not there yet: the nearest existing folder must let the writer create it.
  let dir = path.dirname(path.resolve(file));
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    return check(
      'audit',
      'audit log',
      'fail',
      `${file} cannot be created (${(error as NodeJS.ErrnoException).code ?? describeError(error)} on ${dir})`,
      ['calls are still answered, but rollbacks are refused until it can'],
    );
  }
  return check('audit', 'audit log', 'ok', `${file} will be created on the first call`);
}
