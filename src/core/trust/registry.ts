/**
 * The member registry (spec §4, file federation.yaml, the Python engine's shape):
 * `version: 1`, `agents: {id: {tier, token_sha256, created_at, revoked, grants}}`.
 * Tokens are shown once and stored only as SHA-256; authentication compares against every
 * row in constant time. The file is re-read whenever its stat changes, so revocations and
 * tier changes apply on the next request; a corrupt registry authenticates no one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isTempOf, sweepAtomicTemps, writeFileDurably } from '../fs/atomic.js';
import { lockFileSync } from '../fs/gate.js';
import { TIERS, type Caller, type Tier } from './caller.js';
import { maskTokens } from './token-mask.js';
import { BourdonError, describeError, UsageError, errnoOf } from '../errors.js';
import { pyRepr, truthy } from '../python-str.js';
import { invalidAgentIdMessage, isValidAgentId } from '../store/ids.js';
import { utcSeconds } from '../store/dates.js';
import { crypto } from '../store/hashing.js';
import { isObject } from '../store/manifest.js';
import type { RawObject } from '../store/model.js';
import { stderrWarn } from '../store/warn.js';
import { NotYamlMapping, parseYamlMapping, stringifyYaml } from '../store/yaml.js';

interface MemberRow {
  tier: Tier;
  token_sha256: string;
  created_at: string;
  revoked: boolean;
  grants: string[];
  rotated_at?: string;
  revoked_at?: string;
}

/** A member as shown to people: never the hash. */
export interface MemberView {
  agent_id: string;
  tier: Tier;
  grants: string[];
  created_at: string;
  revoked: boolean;
  rotated_at?: string;
  revoked_at?: string;
}

export interface IssuedToken {
  agent_id: string;
  tier: Tier;
  grants: string[];
  token: string;
}

const TOKEN_PREFIX = 'bdn_';

/**
 * Whether a text has the shape of a member token (`bdn_` and 48 hex digits: 192 random bits),
 * which no one can guess, so checking one tells a guesser nothing.
 */
export function isMemberTokenShape(text: string): boolean {
  return /^bdn_[0-9a-f]{48}$/.test(text);
}

export function newToken(): string {
  return TOKEN_PREFIX + crypto().randomBytes(24).toString('hex');
}

export function hashToken(token: string): string {
  return crypto().createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Both sides are 64 hex characters (the parser refuses any other stored hash). */
function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a.padEnd(64, '0').slice(0, 64), 'utf8');
  const right = Buffer.from(b.padEnd(64, '0').slice(0, 64), 'utf8');
  return crypto().timingSafeEqual(left, right) && a.length === b.length;
}

/**
 * How long after a change the file is re-read on every request, whatever its stat says. File
 * times are coarse (a few ms on Linux, 2 s on FAT) and a rename can reuse an inode, so two
 * writes close together could leave the same size, mtime and inode: a rotation must not be
 * missed because of that (the "racy clean" problem git solves the same way).
 */
const RACY_WINDOW_MS = 2_000;

export function callerFor(agentId: string, row: Pick<MemberRow, 'tier' | 'grants'>): Caller {
  const tier: Tier = row.tier === 'trusted' ? 'trusted' : 'quarantined';
  return { agent_id: agentId, tier, grants: [...row.grants], ceiling: tier === 'trusted' ? 'private' : 'team' };
}

export class FederationRegistry {
  readonly path: string;
  private rows = new Map<string, MemberRow>();
  private statKey: string | null = null;
  /** When the cached rows were read, and the file's mtime then: settles the racy window. */
  private readAt = 0;
  private readMtimeMs = 0;
  private corrupt: string | null = null;
  private readonly warn: (message: string) => void;

  constructor(filePath: string, options: { warn?: (message: string) => void } = {}) {
    this.path = filePath;
    this.warn = options.warn ?? stderrWarn;
  }

  /** Re-reads the file when its stat changed. A corrupt file leaves no members (fail closed). */
  refresh(): void {
    let key: string;
    let mtimeMs = 0;
    try {
      const stat = fs.statSync(this.path, { bigint: true });
      mtimeMs = Number(stat.mtimeNs / 1_000_000n);
      key = `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}:${stat.dev}`;
    } catch (error) {
      const code = errnoOf(error);
      key = code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : `error:${code ?? 'unknown'}`;
    }
    const settled = this.readAt - this.readMtimeMs > RACY_WINDOW_MS;
    if (key === this.statKey && (settled || key === 'missing')) return;
    const previous = this.corrupt;
    this.statKey = key;
    this.readAt = Date.now();
    this.readMtimeMs = mtimeMs;
    this.rows = new Map();
    this.corrupt = null;
    if (key === 'missing') return;
    try {
      this.rows = parseRegistry(fs.readFileSync(this.path, 'utf8'));
    } catch (error) {
      // The YAML parser's message can quote the file: its hashes and tokens are masked.
      this.corrupt = maskTokens(describeError(error), { hashes: true });
      // Once per distinct problem, not once per request while it lasts.
      if (this.corrupt !== previous) {
        this.warn(`registry ${this.path} is unreadable (${this.corrupt}); no member can authenticate`);
      }
    }
  }

  /** Why the registry could not be read, or null. */
  problem(): string | null {
    this.refresh();
    return this.corrupt;
  }

  /** The caller a bearer token stands for, or null. Every row is compared; no early exit. */
  authenticate(token: string): Caller | null {
    if (typeof token !== 'string' || token.trim() === '') return null;
    this.refresh();
    const digest = hashToken(token.trim());
    let found: Caller | null = null;
    for (const [id, row] of this.rows) {
      const same = constantTimeEqualHex(row.token_sha256, digest);
      if (same && !row.revoked) found = callerFor(id, row);
    }
    return found;
  }

  hasActiveMembers(): boolean {
    this.refresh();
    return [...this.rows.values()].some((row) => !row.revoked);
  }

  list(): MemberView[] {
    this.refresh();
    return [...this.rows.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([agentId, row]) => view(agentId, row));
  }

  get(agentId: string): MemberView | null {
    return this.list().find((member) => member.agent_id === agentId) ?? null;
  }

  add(agentId: string, options: { tier?: string; grants?: string[] } = {}, now = new Date()): IssuedToken {
    checkId(agentId);
    const tier = checkTier(options.tier ?? 'quarantined');
    const grants = (options.grants ?? []).map(checkNamespace);
    return this.mutate((rows) => {
      const existing = rows.get(agentId);
      if (existing && !existing.revoked) {
        throw new BourdonError(
          `agent ${pyRepr(agentId)} already registered; use \`bourdon agent rotate\` for a new token or \`bourdon revoke\` first`,
          'conflict',
        );
      }
      const token = newToken();
      rows.set(agentId, {
        tier,
        token_sha256: hashToken(token),
        created_at: utcSeconds(now),
        revoked: false,
        grants: unique(grants),
      });
      return { agent_id: agentId, tier, grants: unique(grants), token };
    });
  }

  rotate(agentId: string, now = new Date()): IssuedToken {
    checkId(agentId);
    return this.mutate((rows) => {
      const row = activeRow(rows, agentId);
      const token = newToken();
      row.token_sha256 = hashToken(token);
      row.rotated_at = utcSeconds(now);
      return { agent_id: agentId, tier: row.tier, grants: [...row.grants], token };
    });
  }

  setTier(agentId: string, tier: string): MemberView {
    checkId(agentId);
    const checked = checkTier(tier);
    return this.mutate((rows) => {
      const row = activeRow(rows, agentId);
      row.tier = checked;
      return view(agentId, row);
    });
  }

  grant(agentId: string, namespace: string): MemberView {
    checkId(agentId);
    const ns = checkNamespace(namespace);
    return this.mutate((rows) => {
      const row = activeRow(rows, agentId);
      if (!row.grants.includes(ns)) row.grants.push(ns);
      return view(agentId, row);
    });
  }

  ungrant(agentId: string, namespace: string): MemberView {
    checkId(agentId);
    const ns = checkNamespace(namespace);
    return this.mutate((rows) => {
      const row = activeRow(rows, agentId);
      row.grants = row.grants.filter((grant) => grant !== ns);
      return view(agentId, row);
    });
  }

  /** Revokes a member: its token stops working on the next request. Revoking twice is a no-op. */
  revoke(agentId: string, now = new Date()): MemberView {
    checkId(agentId);
    return this.mutate((rows) => {
      const row = rows.get(agentId);
      if (!row) throw new BourdonError(`unknown agent ${pyRepr(agentId)}`, 'not_found');
      if (!row.revoked || !row.revoked_at) row.revoked_at = utcSeconds(now);
      row.revoked = true;
      return view(agentId, row);
    });
  }

  /** Read-modify-write under a lock, re-reading under it so concurrent admins lose nothing. */
  private mutate<T>(change: (rows: Map<string, MemberRow>) => T): T {
    fs.mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    const release = lockConfigFile(this.path);
    try {
      let rows = new Map<string, MemberRow>();
      if (fs.existsSync(this.path)) {
        try {
          rows = parseRegistry(fs.readFileSync(this.path, 'utf8'));
        } catch (error) {
          throw new BourdonError(
            `registry ${this.path} is unreadable (${maskTokens(describeError(error), { hashes: true })}); fix or move it first`,
            'source_unreadable',
          );
        }
      }
      const result = change(rows);
      writeFileDurably(this.path, serialiseRegistry(rows), 0o600);
      this.statKey = null;
      return result;
    } finally {
      release();
    }
  }
}

/**
 * The lock for a read-modify-write of a small config file (registry, peers): owner-checked, so
 * a writer that was killed while holding it is recovered at once (see lockFileSync). Temp files
 * such a writer left next to the file are removed while the lock is held.
 */
export function lockConfigFile(target: string, timeoutMs = 10_000): () => void {
  const release = lockFileSync(target, { timeoutMs, warn: () => {} });
  sweepAtomicTemps(path.dirname(target), (name) => isTempOf(name, path.basename(target)));
  return release;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function view(agentId: string, row: MemberRow): MemberView {
  const out: MemberView = {
    agent_id: agentId,
    tier: row.tier,
    grants: [...row.grants],
    created_at: row.created_at,
    revoked: row.revoked,
  };
  if (row.rotated_at) out.rotated_at = row.rotated_at;
  if (row.revoked_at) out.revoked_at = row.revoked_at;
  return out;
}

function checkId(agentId: string): void {
  if (!isValidAgentId(agentId)) throw new UsageError(invalidAgentIdMessage(agentId));
}

function checkTier(tier: string): Tier {
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new UsageError(`invalid tier ${pyRepr(tier)}: must be one of ('trusted', 'quarantined')`);
  }
  return tier as Tier;
}

function checkNamespace(namespace: string): string {
  if (!isValidAgentId(namespace)) throw new UsageError(`invalid namespace ${pyRepr(namespace)}`);
  return namespace;
}

function activeRow(rows: Map<string, MemberRow>, agentId: string): MemberRow {
  const row = rows.get(agentId);
  if (!row) throw new BourdonError(`unknown agent ${pyRepr(agentId)}`, 'not_found');
  if (row.revoked) throw new BourdonError(`agent ${pyRepr(agentId)} is revoked; re-add it instead`, 'conflict');
  return row;
}

export function parseRegistry(text: string): Map<string, MemberRow> {
  let doc: RawObject | null;
  try {
    doc = parseYamlMapping(text);
  } catch (error) {
    throw error instanceof NotYamlMapping && !error.syntax ? new Error('registry is not a YAML mapping') : error;
  }
  if (doc === null) return new Map();
  if (doc.version !== undefined && doc.version !== 1)
    throw new Error(`unsupported registry version ${String(doc.version)}`);
  const agents = doc.agents ?? {};
  if (!isObject(agents)) throw new Error('registry `agents` is not a mapping');
  const rows = new Map<string, MemberRow>();
  for (const [id, raw] of Object.entries(agents)) {
    if (!isValidAgentId(id) || !isObject(raw)) throw new Error(`invalid registry row ${JSON.stringify(id)}`);
    const hash = raw.token_sha256;
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash))
      throw new Error(`registry row ${id} has no valid token hash`);
    // A scalar grant reads as a one-item list (the engine splits it into characters); other
    // non-string entries are dropped. Grants only ever narrow what a quarantined member reads.
    const rawGrants = typeof raw.grants === 'string' ? [raw.grants] : Array.isArray(raw.grants) ? raw.grants : [];
    const grants = unique(rawGrants.filter((g): g is string => typeof g === 'string'));
    const row: MemberRow = {
      // Trusted only when it says so: a missing or unknown tier is quarantined (fail closed;
      // the engine reads a missing tier as trusted, see docs/trust.md).
      tier: raw.tier === 'trusted' ? 'trusted' : 'quarantined',
      token_sha256: hash,
      created_at: typeof raw.created_at === 'string' ? raw.created_at : '',
      // Python's truthiness: any truthy value revokes (fail closed).
      revoked: truthy(raw.revoked),
      grants,
    };
    if (typeof raw.rotated_at === 'string') row.rotated_at = raw.rotated_at;
    if (typeof raw.revoked_at === 'string') row.revoked_at = raw.revoked_at;
    rows.set(id, row);
  }
  return rows;
}

/** Sorted keys, as the engine writes it (`safe_dump(sort_keys=True)`). */
export function serialiseRegistry(rows: Map<string, MemberRow>): string {
  const agents: Record<string, Record<string, unknown>> = {};
  for (const id of [...rows.keys()].sort()) {
    const row = rows.get(id)!;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(row).sort()) sorted[key] = row[key as keyof MemberRow];
    agents[id] = sorted;
  }
  return stringifyYaml({ agents, version: 1 });
}
