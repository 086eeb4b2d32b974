/**
 * The Codex participant: publishes OpenAI Codex CLI's native memory (its state database, session
 * index, rollouts, distilled memories and the `~/codex-brain` overlay) as the `codex` agent's
 * manifest, at parity with the Python engine's codex adapter. docs/participants-codex.md has the
 * sources, rules and the differences from the engine.
 */
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { sinceRules } from '../kit/since.js';
import { derive } from './entities.js';
import { AGENT_ID, assembleManifest } from './manifest.js';
import { collectMemory, emptyMemory, fallbackMemory, memoryItemCount, type MemoryData } from './memory.js';
import { discoverSources, locate, readerFor } from './paths.js';
import { collectSessionRecords, type SessionRecord } from './records.js';
import { compareCodePoints } from './text.js';

const reason = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n', 1).join('');

/** Runs one phase; an unexpected failure becomes a warning and the phase's empty result. */
async function guarded<T>(
  what: string,
  warn: (message: string) => void,
  fallback: T,
  run: () => T | Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    warn(`codex: ${what} skipped (${reason(error)})`);
    return fallback;
  }
}

function withStateProblem(sources: SourceStatus[], warnings: readonly string[]): SourceStatus[] {
  const state = sources.find((source) => source.name === 'state_db');
  const problem = state?.found ? warnings.find((warning) => warning.startsWith(`${state.path}:`)) : undefined;
  if (!state || !problem) return sources;
  return sources.map((source) =>
    source === state ? { ...source, problem: problem.slice(state.path.length + 2) } : source,
  );
}

async function exportCodex(environment: ExportEnvironment): Promise<ParticipantExport> {
  const where = await locate(environment);
  const reader = readerFor(where);
  const { warnings } = reader;
  const sources = discoverSources(where, reader);
  const found = sources.filter((source) => source.found);
  // Nothing found: the report says so, once, naming where it looked (export-command.ts).
  if (found.length === 0) return { manifest: undefined, sources, warnings };
  const records = await guarded<SessionRecord[]>('sessions', reader.warn, [], () =>
    collectSessionRecords(where, reader),
  );
  const memory = await guarded<MemoryData>('memories', reader.warn, emptyMemory(), () => collectMemory(where, reader));
  if (memoryItemCount(memory) === 0) {
    // Nothing distilled yet: the engine recovers the same shape from the session records.
    const fallback = fallbackMemory(records, where.home);
    memory.main.extend(fallback.main);
    for (const [id, sections] of fallback.threads) memory.threads.set(id, sections);
  }
  const { sessions, entities } = derive({
    records,
    memory,
    home: where.home,
    codexHome: where.codexHome,
    platform: where.platform,
    since: sinceRules(environment),
  });
  const manifest = assembleManifest({
    hostname: environment.hostname,
    now: environment.now,
    capabilities: found.map((source) => source.name).sort(compareCodePoints),
    sessions,
    entities,
  });
  return { manifest, sources: withStateProblem(sources, warnings), warnings };
}

export const codexParticipant: Participant = {
  agentId: AGENT_ID,
  // Its parts, each named (state database, index, sessions, memories, the brain), not all of ~/.codex.
  watch: { follow: 'sources', except: ['codex_home'] },
  topic: 'codex',
  help: {
    summary: "Publish Codex's sessions and memories as the codex manifest.",
    reads:
      "Reads Codex's home ($CODEX_HOME or ~/.codex: state_5.sqlite, session_index.jsonl, sessions/, memories/) and ~/codex-brain, read-only.",
  },
  async sources(environment) {
    // Which sources are here; what an export would refuse is said when it exports.
    const where = await locate(environment);
    return discoverSources(where, readerFor(where));
  },
  export: exportCodex,
};
