/**
 * What an export changed, in words (`3 entities changed, 1 session changed`): the agent's live
 * (or staged) manifest read before and after, diffed (core/writes/manifest-diff.ts). Counted by
 * the warm export worker, where the manifests already are, so the watch itself holds none; a
 * manifest over MAX_DIFF_BYTES is not diffed, its counts are said instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { libraryPaths } from '../core/store/paths.js';
import { plural } from '../core/store/words.js';
import { diffManifests, sideOf } from '../core/writes/manifest-diff.js';

/** Manifests larger than this are not diffed: counts are said instead. */
const MAX_DIFF_BYTES = 1024 * 1024;

export interface ChangeWords {
  text: string;
  /** Rows added, removed or changed; null when not diffed. */
  entities: number | null;
  sessions: number | null;
}

/** Where the export of `participant` lands in the library: its live manifest, or staged. */
export function liveManifestPath(libraryRoot: string, participant: { agentId: string; staged?: boolean }): string {
  const paths = libraryPaths(libraryRoot);
  const id = participant.agentId;
  return participant.staged ? path.join(paths.staging, id, `${id}.l5.yaml`) : path.join(paths.agents, `${id}.l5.yaml`);
}

/** The file's bytes; null when it is not there; 'too large' past what the diff reads. */
export function readForDiff(file: string): Buffer | null | 'too large' {
  try {
    if (fs.statSync(file).size > MAX_DIFF_BYTES) return 'too large';
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** What changed between the two readings; the export's counts when one was not diffed. */
export function wordsOf(
  before: Buffer | null | 'too large',
  after: Buffer | null | 'too large',
  counts: { entities: number; sessions: number } | null | undefined,
): ChangeWords {
  if (before === 'too large' || after === 'too large' || after === null)
    return {
      text: `${plural(counts?.entities ?? 0, 'entity', 'entities')}, ${plural(counts?.sessions ?? 0, 'session')}`,
      entities: null,
      sessions: null,
    };
  const diff = diffManifests(sideOf(before), sideOf(after), 'private');
  const count = (rows: { added: unknown[]; removed: unknown[]; changed: unknown[] }) =>
    rows.added.length + rows.removed.length + rows.changed.length;
  const entities = count(diff.entities);
  const sessions = count(diff.sessions);
  const parts = [
    ...(entities ? [`${plural(entities, 'entity', 'entities')} changed`] : []),
    ...(sessions ? [`${plural(sessions, 'session')} changed`] : []),
  ];
  return { text: parts.length ? parts.join(', ') : 'its fields changed', entities, sessions };
}
