/**
 * What each rollback in an agent's history restored, and why. A version record says only
 * `op: rollback` (its fields are spec §8's); the version it restored is the latest earlier
 * version with the same bytes (a rollback restores bytes exactly), and the reason is in the
 * audit record the rollback wrote just before it (`restore version N (reason)`), which also
 * names the version asked for. `list_memory_versions`, `bourdon history` and the page's History
 * view all show them from here.
 */
import { queryAudit, type AuditRecord } from '../trust/audit.js';
import type { VersionRecord } from './version-record.js';

export interface RollbackNote {
  /** The version whose content it restored, or null when no earlier version matches. */
  restored_version: number | null;
  /** The reason given, or null (none given, no audit record found, or the log not read). */
  reason: string | null;
}

/** Rollback audit records read per listing: the newest this many, across agents. */
const AUDIT_LOOKBACK = 2000;

/** The audit record's detail for a rollback: `restore version N (reason)`. */
export function rollbackAuditDetail(version: number, reason: string | null): string {
  return `restore version ${version}${reason ? ` (${reason})` : ''}`;
}

/** The version and reason a rollback's audit detail names (a long reason is cut by the audit log), or null. */
function parseRollbackAuditDetail(detail: string | undefined): { version: number; reason: string | null } | null {
  const match = /^restore version (\d+)(?: \((.*))?$/s.exec(detail ?? '');
  if (!match) return null;
  const reason = match[2] === undefined ? null : match[2].replace(/\)$/, '');
  return { version: Number(match[1]), reason };
}

type Listed = Pick<VersionRecord, 'version' | 'ts' | 'op' | 'sha256'>;

/**
 * Notes for the rollbacks among `shown`, by version, matched against every version in `all`
 * (the one restored may be older than those shown). `auditPath` null reads no log: the
 * restored version still shows (by its bytes), the reason does not; so does an unreadable log.
 */
export async function rollbackNotes(
  auditPath: string | null,
  agent: string,
  all: readonly Listed[],
  shown: readonly Listed[] = all,
): Promise<Map<number, RollbackNote>> {
  const notes = new Map<number, RollbackNote>();
  const rollbacks = shown.filter((v) => v.op === 'rollback');
  if (rollbacks.length === 0) return notes;
  const audit = auditPath
    ? await queryAudit(auditPath, { op: 'rollback_agent_memory', decision: 'allow', limit: AUDIT_LOOKBACK })
        .then((result) => result.records)
        .catch((): AuditRecord[] => [])
    : [];
  const mine = audit.filter((record) => record.namespace === agent);
  const ascending = [...all].sort((a, b) => a.version - b.version);
  const used = new Set<AuditRecord>();
  for (const rollback of [...rollbacks].sort((a, b) => a.version - b.version)) {
    const sameBytes = (v: Listed) => v.version < rollback.version && v.sha256 !== null && v.sha256 === rollback.sha256;
    const byHash = [...ascending].reverse().find(sameBytes)?.version ?? null;
    // Its audit record: written after the version before it, no later than it.
    const before = ascending.filter((v) => v.version < rollback.version).at(-1);
    const record = [...mine]
      .reverse()
      .find((r) => !used.has(r) && r.ts <= rollback.ts && (!before || r.ts >= before.ts));
    const said = record ? parseRollbackAuditDetail(record.detail) : null;
    // The audit names the version asked for; trust it when its bytes are the ones restored.
    const named = said ? ascending.find((v) => v.version === said.version) : undefined;
    const agrees =
      said !== null &&
      (named === undefined ? byHash === null : byHash === null ? named.sha256 === null : sameBytes(named));
    if (record && agrees) used.add(record);
    notes.set(rollback.version, {
      restored_version: agrees ? said!.version : byHash,
      reason: agrees ? said!.reason : null,
    });
  }
  return notes;
}
