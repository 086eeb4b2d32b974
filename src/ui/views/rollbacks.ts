/**
 * What each rollback in an agent's history restored, and why. A version record says only
 * `op: rollback` (its fields are the engine's, spec §8); the version it restored is the earlier
 * version with the same bytes (a rollback restores bytes exactly), and the reason is in the audit
 * record the rollback wrote just before it (`restore version N (reason)`).
 */
import { queryAudit, type AuditRecord } from '../../core/trust/audit.js';
import { parseRollbackAuditDetail, type CappedVersionView, type VersionView } from '../../core/writes/versions.js';

export interface RollbackNote {
  /** The version whose content it restored, or null when no earlier version matches. */
  restored: number | null;
  /** The reason given, or null (none given, or no audit record found). */
  reason: string | null;
}

/** Rollback audit records read per render: the newest this many, across agents. */
const AUDIT_LOOKBACK = 2000;

/** Notes for every rollback among `versions` (newest first, as the listing answers), by version. */
export async function rollbackNotes(
  auditPath: string,
  agent: string,
  versions: readonly (VersionView | CappedVersionView)[],
): Promise<Map<number, RollbackNote>> {
  const notes = new Map<number, RollbackNote>();
  const rollbacks = versions.filter((v) => v.op === 'rollback');
  if (rollbacks.length === 0) return notes;
  // An unreadable log: the restored version still shows, the reason does not.
  const audit = await queryAudit(auditPath, { op: 'rollback_agent_memory', decision: 'allow', limit: AUDIT_LOOKBACK })
    .then((result) => result.records)
    .catch((): AuditRecord[] => []);
  const mine = audit.filter((record) => record.namespace === agent);
  const ascending = [...versions].sort((a, b) => a.version - b.version);
  const used = new Set<AuditRecord>();
  for (const rollback of [...rollbacks].sort((a, b) => a.version - b.version)) {
    const sameBytes = (v: VersionView | CappedVersionView) =>
      v.version < rollback.version && v.sha256 !== null && v.sha256 === rollback.sha256;
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
      restored: agrees ? said!.version : byHash,
      reason: agrees ? said!.reason : null,
    });
  }
  return notes;
}
