/**
 * The audit trail (spec §4): one JSON line per call, allow and deny alike. Lines are appended
 * with a single write on an O_APPEND descriptor, so concurrent processes never interleave
 * within a line. No token material is ever part of a record: records carry ids only.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface AuditRecord {
  ts: string;
  agent: string;
  op: string;
  namespace: string;
  decision: 'allow' | 'deny';
  detail?: string;
}

export function auditRecord(agent: string, op: string, namespace: string, allowed: boolean, detail?: string): AuditRecord {
  const record: AuditRecord = { ts: new Date().toISOString(), agent, op, namespace, decision: allowed ? 'allow' : 'deny' };
  if (detail !== undefined) record.detail = detail;
  return record;
}

/** Appends one record; throws when it cannot (callers decide whether that is fatal). */
export function appendAudit(auditPath: string, record: AuditRecord): void {
  fs.mkdirSync(path.dirname(auditPath), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(auditPath, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(record) + '\n');
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads the audit log, skipping lines that do not parse (a torn last line, say). */
export function readAudit(auditPath: string): AuditRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(auditPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: AuditRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = JSON.parse(line) as AuditRecord;
      if (parsed && typeof parsed === 'object' && typeof parsed.op === 'string') out.push(parsed);
    } catch {
      // a line torn by a crash mid-write: skip it, keep the rest
    }
  }
  return out;
}
