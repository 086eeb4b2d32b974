/**
 * A library snapshot: each manifest's outcome (its record, or why it is not a manifest) put
 * together as queries read them, with the engine's rule for two files declaring one id and the
 * pulled manifests after the local ones.
 */
import { MANIFEST_SUFFIX, type AgentRecord, type BrokenRecord } from './manifest-file.js';
import type { Warn } from './warn.js';

export interface LibrarySnapshot {
  /** Increases whenever any manifest changed; derived indexes are cached per snapshot. */
  readonly generation: number;
  /** Readable manifests, sorted by agent id. */
  readonly agents: readonly AgentRecord[];
  readonly broken: readonly BrokenRecord[];
  readonly byId: ReadonlyMap<string, AgentRecord>;
}

/** One manifest file as loaded: its record, or the reason it is not a manifest. */
export type Outcome = { ok: true; record: AgentRecord } | { ok: false; broken: BrokenRecord };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Of two files (names in agents/) declaring agent id `id`, whether the one after `earlier` in
 * sorted load order is served instead of it. The file named after the id
 * (`<id>.l5.yaml`) is always served: a stray copy such as `dup.l5.yaml` must not hide the real
 * manifest, and a commit (which writes `<id>.l5.yaml`) is always read back. Otherwise the last
 * file by name wins, as in the engine (docs/conformance.md).
 */
export function laterServedOver(id: string, earlier: string): boolean {
  return earlier !== `${id}${MANIFEST_SUFFIX}`;
}

/**
 * The snapshot of `outcomes` (local manifest files, any order) and `pulled` (other machines'
 * records). Two files declaring one id: `laterServedOver` chooses (even when the served file's
 * last_updated is older); the other is skipped with a warning, and doctor reports it. A pulled
 * record never shadows a local one.
 */
export function assembleSnapshot(
  outcomes: readonly Outcome[],
  pulled: readonly AgentRecord[],
  generation: number,
  warn: Warn,
): LibrarySnapshot {
  const byId = new Map<string, AgentRecord>();
  const broken: BrokenRecord[] = [];
  const fileOf = (outcome: Outcome) => (outcome.ok ? outcome.record.file : outcome.broken.file);
  const inLoadOrder = [...outcomes].sort((a, b) => byText(fileOf(a), fileOf(b)));
  for (const outcome of inLoadOrder) {
    if (!outcome.ok) {
      broken.push(outcome.broken);
      continue;
    }
    const record = outcome.record;
    const existing = byId.get(record.id);
    if (existing && !laterServedOver(record.id, existing.file)) {
      warn(`skipping ${record.path}: duplicate agent id ${JSON.stringify(record.id)} (also in ${existing.file})`);
      continue;
    }
    byId.set(record.id, record);
    if (existing)
      warn(`skipping ${existing.path}: duplicate agent id ${JSON.stringify(existing.id)} (also in ${record.file})`);
  }
  for (const record of pulled) {
    if (byId.has(record.id)) warn(`skipping ${record.path}: a local manifest declares ${JSON.stringify(record.id)}`);
    else byId.set(record.id, record);
  }
  const agents = [...byId.values()].sort((a, b) => byText(a.id, b.id));
  return { generation, agents, broken, byId };
}
