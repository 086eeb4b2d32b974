/**
 * What a commit is recorded as (its origin) and what it answers (its summary, or the engine's
 * failure shape): the types the commit path, its write thread and staging share.
 */
import type { AccessLevel } from '../trust/access.js';
import type { CommitCounts } from './manifest-build.js';

/** What a write is recorded as in the version history. */
export interface WriteOrigin {
  op: string;
  actor: string | null;
  /**
   * The most the writer may read (default private). A writer capped below private neither
   * changes nor detects rows above its ceiling (docs/trust.md, "Writes from capped callers").
   */
  ceiling?: AccessLevel;
}

/** A refused commit, as the engine answers it. */
export type CommitFailure = { error: string; agent_id: string; mode: string };

/** What a live commit answers: its counts, the totals the writer may see, and the version it holds. */
export type CommitSummary = {
  agent_id: string;
  path: string;
  mode: string;
} & CommitCounts & {
    total_entities: number;
    total_sessions: number;
    total_notes: number;
    /** The manifest's `last_updated` as written (a string unless the file says otherwise). */
    last_updated: unknown;
    version: number;
  };
