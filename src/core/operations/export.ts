/**
 * The `bourdon.agents/v1` export envelope: a redacted, private-free inventory of this
 * machine's agents, safe to hand to any caller or peer (divergence D3).
 */
import { canSee } from '../trust/access.js';
import { agentsInScope, machineName, type OperationContext } from '../context.js';
import type { AgentRecord, BrokenRecord } from '../store/library.js';
import { newestFirst } from '../store/manifest.js';
import { redactList, redactNullable, redactText } from '../trust/redaction.js';
import type { Answer, ExportedAgent, exportAgentsAnswer } from './answers.js';

const EXPORT_SCHEMA = 'bourdon.agents/v1';
const RECENT_ACTIVITY_LIMIT = 10;

export type { ExportedAgent };

function exportAgent(agent: AgentRecord, source: string): ExportedAgent {
  const sessions = agent.sessions
    .filter((session) => canSee('team', session.visibility))
    .map((session, order) => ({ session, order }))
    .sort((a, b) => newestFirst(a.session, b.session) || a.order - b.order)
    .map(({ session }) => session);
  return {
    id: agent.id,
    type: redactNullable(agent.agent.type),
    instance: redactNullable(agent.agent.instance),
    role_narrative: redactNullable(agent.agent.role_narrative),
    last_updated: agent.last_updated,
    capability_count: agent.capabilities.length,
    session_count: sessions.length,
    freshest_session_date: sessions[0]?.date ?? null,
    recent_activity: sessions.slice(0, RECENT_ACTIVITY_LIMIT).map((session) => ({
      date: session.date,
      project_focus: redactList(session.project_focus),
      key_actions: redactList(session.key_actions),
      visibility: session.visibility,
    })),
    parse_error: null,
    source,
    source_kind: 'local',
  };
}

function exportBroken(broken: BrokenRecord, source: string): ExportedAgent {
  return {
    id: broken.id,
    type: null,
    instance: null,
    role_narrative: null,
    last_updated: null,
    capability_count: null,
    session_count: null,
    freshest_session_date: null,
    recent_activity: [],
    parse_error: redactText(broken.error, 2000),
    source,
    source_kind: 'local',
  };
}

function timeOf(value: string | null): number {
  if (!value) return Number.NEGATIVE_INFINITY;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
}

/** The `bourdon.agents/v1` envelope. */
export type ExportAgentsOutput = Answer<typeof exportAgentsAnswer>;

export async function exportAgents(ctx: OperationContext): Promise<ExportAgentsOutput> {
  const machine = machineName(ctx.env);
  const agents = agentsInScope(ctx).map((agent) => exportAgent(agent, machine));
  // Broken manifests are visible to whoever may read their namespace.
  const broken = ctx.store
    .snapshot()
    .broken.filter((record) => ctx.caller.tier === 'trusted' || ctx.caller.grants.includes(record.id))
    .map((record) => exportBroken(record, machine));
  const ordered = [...agents, ...broken]
    .map((agent, order) => ({ agent, order, time: timeOf(agent.last_updated) }))
    .sort((a, b) => (a.time === b.time ? a.order - b.order : b.time - a.time))
    .map(({ agent }) => agent);
  // Where the library lives is this machine's own business: a caller capped below private (one
  // over HTTP from another address, or quarantined) gets '' (docs/conformance.md, D20), as a peer
  // envelope without the key is read (answers.ts). The local caller gets the path, as the engine answers.
  const generatedFrom = ctx.caller.ceiling === 'private' ? ctx.store.paths.agents : '';
  return { schema: EXPORT_SCHEMA, machine, generated_from: generatedFrom, agents: ordered };
}
