/**
 * The audit trail (spec §4): one JSON line per call, allow and deny alike. Lines are appended
 * with a single write on an O_APPEND descriptor, so concurrent processes never interleave
 * within a line. No token material is ever part of a record: records carry ids only, and any
 * text shaped like a member token (a caller can pass anything as an argument) is masked.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { maskTokens } from './token-mask.js';
import type * as Readline from 'node:readline';
import { errnoOf } from '../errors.js';

const require = createRequire(import.meta.url);

/**
 * What happened to a call: `allow` (allowed, and it did what it was asked), `deny` (refused:
 * the caller may not, or its arguments were invalid) or `fail` (allowed, but it failed:
 * the detail says why — an invalid agent id, an unknown version, a remote that refused).
 */
export type AuditDecision = 'allow' | 'deny' | 'fail';
export const AUDIT_DECISIONS: readonly AuditDecision[] = ['allow', 'deny', 'fail'];

export interface AuditRecord {
  ts: string;
  agent: string;
  op: string;
  namespace: string;
  decision: AuditDecision;
  detail?: string;
}

/** Longest namespace or detail kept in a record: arguments come from callers, lines stay small. */
const AUDIT_FIELD_MAX = 200;

/** The legacy operator token's variable (the HTTP transport reads the same one). */
const LEGACY_TOKEN_VARIABLE = 'BOURDON_PEER_TOKEN_SERVER';

/** Secrets this process was configured with (the legacy token), masked wherever they appear. */
const configuredSecrets = new Set<string>();

/** Masks `secret` in every later audit record and denial detail (the HTTP transport's legacy token). */
export function maskSecret(secret: string): void {
  const trimmed = secret.trim();
  if (trimmed !== '') configuredSecrets.add(trimmed);
}

/**
 * Masks anything that could be a credential, so a token passed as an argument is never
 * logged: member tokens (`bdn_…`), the configured legacy token (registered, or in this
 * process's BOURDON_PEER_TOKEN_SERVER) and `Bearer …` / `Authorization: …` values
 * (the one mask, token-mask.ts, told this process's secrets).
 */
export function maskConfiguredTokens(text: string): string {
  return maskTokens(text, { known: [...configuredSecrets, process.env[LEGACY_TOKEN_VARIABLE]] });
}

function field(text: string): string {
  const masked = maskConfiguredTokens(text);
  return masked.length > AUDIT_FIELD_MAX ? masked.slice(0, AUDIT_FIELD_MAX - 3) + '...' : masked;
}

/** A record; `outcome` is the decision, or true / false for allow / deny. */
export function auditRecord(
  agent: string,
  op: string,
  namespace: string,
  outcome: boolean | AuditDecision,
  detail?: string,
): AuditRecord {
  const record: AuditRecord = {
    ts: new Date().toISOString(),
    agent: field(agent),
    op,
    namespace: field(namespace),
    decision: outcome === true ? 'allow' : outcome === false ? 'deny' : outcome,
  };
  // One line, whatever the failure said (a parse error spans lines).
  if (detail) record.detail = field(detail.replace(/\s*\n\s*/g, ' '));
  return record;
}

/**
 * Appends one record; throws when it cannot (callers decide whether that is fatal). The line
 * goes out in one write(2) on an O_APPEND descriptor: the kernel appends it whole, so lines
 * from concurrent processes never interleave. A short write (disk full) is reported.
 */
export function appendAudit(auditPath: string, record: AuditRecord, rotation: AuditRotation = AUDIT_ROTATION): void {
  const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
  const fd = openForAppend(auditPath);
  try {
    const written = fs.writeSync(fd, line);
    if (written !== line.length) throw new Error(`short write to ${auditPath} (${written} of ${line.length} bytes)`);
    const stat = fs.fstatSync(fd);
    if (stat.size >= rotation.maxBytes) rotateAudit(auditPath, stat.ino, rotation.keep);
  } finally {
    fs.closeSync(fd);
  }
}

/** Folders this process already made: a server appends a line per call, the folder stays. */
const madeFolders = new Set<string>();

/** The log opened for appending; its folder is made on first use, or again when it went away. */
function openForAppend(auditPath: string): number {
  const folder = path.dirname(auditPath);
  const open = () =>
    fs.openSync(auditPath, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
  if (madeFolders.has(folder)) {
    try {
      return open();
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
    }
  }
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  madeFolders.add(folder);
  return open();
}

export interface AuditRotation {
  /** The current log is rotated once it reaches this size. */
  maxBytes: number;
  /** Rotated files kept (`audit.jsonl.1` newest … `.keep` oldest); older ones are deleted. */
  keep: number;
}

/** 10 MiB per file (about 90,000 records), 5 rotated files: the trail stays under 60 MiB. */
const AUDIT_ROTATION: AuditRotation = { maxBytes: 10 * 1024 * 1024, keep: 5 };

/**
 * Shifts `.1` … `.keep-1` up by one (dropping `.keep`) and renames the current log to `.1`;
 * the next record starts a new current log. Only renames, so no record of the current log is
 * ever lost; skipped when another process rotated first (the path is no longer the file this
 * one wrote to).
 */
function rotateAudit(auditPath: string, inode: number, keep: number): void {
  try {
    if (fs.statSync(auditPath).ino !== inode) return;
    fs.rmSync(`${auditPath}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) {
      try {
        fs.renameSync(`${auditPath}.${n}`, `${auditPath}.${n + 1}`);
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw error;
      }
    }
    fs.renameSync(auditPath, `${auditPath}.1`);
  } catch {
    // A rotation that could not finish leaves every record where a reader finds it; the next append tries again.
  }
}

/** The log's files, oldest first: the rotated ones that exist (`.N` … `.1`), then the current one. */
export function auditFiles(auditPath: string): string[] {
  const rotated: string[] = [];
  for (let n = 1; fs.existsSync(`${auditPath}.${n}`); n++) rotated.unshift(`${auditPath}.${n}`);
  return [...rotated, auditPath];
}

function isRecord(value: unknown): value is AuditRecord {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return typeof record.op === 'string' && typeof record.agent === 'string' && typeof record.decision === 'string';
}

/**
 * One line of the log as a record, or null. A process that died mid-write leaves a torn line
 * with no newline, and the next append lands on the same line: the torn prefix is dropped and
 * the record after it recovered, so a crash costs one record, never two.
 */
export function parseAuditLine(line: string): AuditRecord | null {
  const text = line.trim();
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return isRecord(parsed) ? parsed : null;
  } catch {
    const start = text.lastIndexOf('{"ts"');
    if (start <= 0) return null;
    try {
      const parsed = JSON.parse(text.slice(start)) as unknown;
      return isRecord(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
}

/** Reads the whole audit log, skipping lines that do not parse (a torn last line, say). */
export function readAudit(auditPath: string): AuditRecord[] {
  let text = '';
  for (const file of auditFiles(auditPath)) {
    try {
      text += fs.readFileSync(file, 'utf8') + '\n';
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
    }
  }
  const out: AuditRecord[] = [];
  for (const line of text.split('\n')) {
    const record = parseAuditLine(line);
    if (record) out.push(record);
  }
  return out;
}

interface AuditFilter {
  /** Only this caller's records. */
  agent?: string;
  /** Only refusals. */
  denials?: boolean;
  /** Only calls of this tool or operation. */
  op?: string;
  /** Only this decision. */
  decision?: AuditDecision;
  /** Only the newest N (after the other filters), still oldest first. */
  limit?: number;
}

interface AuditQueryResult {
  records: AuditRecord[];
  /** How many records matched the filters before the limit applied. */
  matched: number;
}

/**
 * Streams the log and keeps only what the filters ask for, oldest first; memory stays bounded
 * by the limit however long the log has grown. A missing log is an empty trail.
 */
export async function queryAudit(auditPath: string, filter: AuditFilter = {}): Promise<AuditQueryResult> {
  const limit = filter.limit !== undefined && filter.limit >= 0 ? filter.limit : Number.POSITIVE_INFINITY;
  const kept: AuditRecord[] = [];
  let matched = 0;
  // Loaded here, not at the top: every CLI call loads this module, few read the audit trail.
  // Required, not import()ed: the --json fast path runs as a script, where import() fails.
  const readline = require('node:readline') as typeof Readline;
  for (const file of auditFiles(auditPath)) {
    let stream: fs.ReadStream;
    try {
      fs.accessSync(file, fs.constants.R_OK);
      stream = fs.createReadStream(file, { encoding: 'utf8' });
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') continue;
      throw error;
    }
    const lines = readline.createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) keep(line);
  }
  return { records: kept.length > limit ? kept.slice(kept.length - limit) : kept, matched };

  function keep(line: string): void {
    const record = parseAuditLine(line);
    if (!record) return;
    if (filter.agent !== undefined && record.agent !== filter.agent) return;
    if (filter.denials && record.decision !== 'deny') return;
    if (filter.op !== undefined && record.op !== filter.op) return;
    if (filter.decision !== undefined && record.decision !== filter.decision) return;
    matched++;
    if (limit === 0) return;
    kept.push(record);
    if (kept.length >= limit * 2 + 1024) kept.splice(0, kept.length - limit);
  }
}
