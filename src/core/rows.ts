/**
 * The rows read answers list across agents, declared once with zod, below both of their users:
 * the operations that build them from local manifests (operations/queries.ts) and federation,
 * which merges peers' rows into them. The TypeScript types are inferred from the schemas; the
 * schemas are built on first use (a one-shot CLI call seldom needs them: bench/README.md).
 *
 * Parsing a peer's row with these fills in what the engine answers when a key is absent (an
 * empty list, null) and drops keys no answer carries, so nothing a peer invents is passed on.
 */
import * as z from 'zod';
import { lazy } from './lazy.js';

const texts = () => z.array(z.string());

/** Entities of one name across agents: who lists it, its types, each agent's summary, its tags. */
export const entityMatchRow = lazy(() =>
  z.object({
    name: z.string(),
    agents: texts().default([]),
    types: texts().default([]),
    summaries: z.record(z.string(), z.string()).default({}),
    tags: texts().default([]),
  }),
);
export type EntityMatch = z.output<ReturnType<typeof entityMatchRow>>;

/** A session as answers list it: its agent, day, folder and focus (actions and files unless summarised). */
export const sessionRefRow = lazy(() =>
  z.object({
    agent: z.string(),
    date: z.string(),
    cwd: z.string().nullable().default(null),
    project_focus: texts().default([]),
    key_actions: texts().optional(),
    files_touched: texts().optional(),
  }),
);
export type SessionRef = z.output<ReturnType<typeof sessionRefRow>>;

/** A peer that did not answer, as payloads that report reachability list it. */
export const unreachablePeerRow = lazy(() =>
  z.object({ peer: z.string(), timed_out: z.boolean(), error: z.string().nullable() }),
);
export type UnreachablePeer = z.output<ReturnType<typeof unreachablePeerRow>>;

/** How the peers of a fanned-out recognition answered (present only when peers exist). */
export const peerReportFields = () => ({
  peer_latencies_us: z.record(z.string(), z.number().nullable()).optional(),
  peers_queried: z.number().int().optional(),
  peers_responded: z.number().int().optional(),
  peers_timed_out: z.number().int().optional(),
});
