/**
 * Fan-out and merge (spec §11). A trusted caller's query at federation_hop 0 also asks every
 * peer (which answers from its local store only: depth 1), and the answers are merged with
 * provenance: a peer's agents appear as `peer:<peer>:<agent>`. Quarantined callers never fan
 * out: their grants name local namespaces only. A peer that fails contributes nothing.
 *
 * A peer is another machine, not a trusted one: its answer is bounded (rows, list items)
 * before anything merges it, every merge is linear, every row it sends carries the tag this
 * machine configured for it, and rows it dates in the future are dropped.
 */
import type { OperationContext } from '../context.js';
import { latestForeignDay } from '../store/dates.js';
import { redactSecretsIn } from '../trust/redaction.js';
import type { EntityMatch, SessionRef, UnreachablePeer } from '../rows.js';
import type { PeerAnswer } from '../peers.js';

const PEER_PREFIX = 'peer:';

export function shouldFanOut(ctx: OperationContext, args: { federation_hop?: number | null }): boolean {
  return (
    Boolean(ctx.peers && ctx.peers.names.length > 0) &&
    !((args.federation_hop ?? 0) > 0) &&
    ctx.caller.tier === 'trusted'
  );
}

/**
 * Provenance tag for a peer's agent: always the peer name this machine configured, first. A
 * peer answering at depth 1 has no peer rows of its own to report, so an agent it calls
 * `peer:laptop:codex` is only its claim: it stays visible after our tag
 * (`peer:<peer>:peer:laptop:codex`), never in place of it.
 */
export function tagAgent(peer: string, agent: string): string {
  return `${PEER_PREFIX}${peer}:${agent}`;
}

/** Rows kept from one list in one peer answer (the newest first, as the peer sent them). */
const MAX_PEER_ROWS = 1_000;
/** Items kept from one list (or keys from one map, e.g. `summaries`) inside one peer row. */
const MAX_PEER_LIST_ITEMS = 1_000;
/** Items kept from all the rows' lists and maps of one peer answer together (as a commit's cap). */
const MAX_PEER_ITEMS = 20_000;

/** The field that dates each kind of row a peer sends, for the future-date rule. */
const DATED_ROWS: Record<string, string> = {
  sessions: 'date',
  recent_sessions: 'date',
  notes: 'date',
  workstreams: 'last_activity',
  results: 'date',
};

/**
 * Characters a peer's text may not carry into anything built from it: line breaks (which would
 * start a line of our own prompt context or output with the peer's words), every other control
 * character, and the invisible ones that reorder or hide text (bidi overrides and isolates,
 * zero-width marks, U+2028/U+2029, U+FEFF).
 */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const PEER_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]+/g;

/** A peer's string as one line: each run of unsafe characters (PEER_UNSAFE) becomes one space. */
function peerText(value: string): string {
  return value.replace(PEER_UNSAFE, ' ');
}

/** A peer's value with its strings made one line (peerText); anything else as it is. */
function peerValue(value: unknown): unknown {
  return typeof value === 'string' ? peerText(value) : value;
}

/**
 * Row fields whose text is a body, shown as a block, where a line break is content (a note's
 * text); every other string a peer sends — names, summaries, types, tags, agents, paths — is
 * made one line.
 */
const PEER_BODY_FIELDS = new Set(['text']);

/**
 * A row with its lists and maps cut to what `budget.items` still allows (and
 * MAX_PEER_LIST_ITEMS), and its strings, list items, map keys and map values made one line
 * (peerText) before any merge or text is built from them.
 */
function boundRow(row: unknown, budget: { items: number }): unknown {
  if (!row || typeof row !== 'object' || Array.isArray(row)) return peerValue(row);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (Array.isArray(value)) {
      const kept = value.slice(0, Math.min(MAX_PEER_LIST_ITEMS, budget.items));
      budget.items -= kept.length;
      out[key] = kept.map(peerValue);
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>).slice(
        0,
        Math.min(MAX_PEER_LIST_ITEMS, budget.items),
      );
      budget.items -= entries.length;
      out[key] = Object.fromEntries(entries.map(([name, item]) => [peerText(name), peerValue(item)]));
    } else out[key] = PEER_BODY_FIELDS.has(key) ? value : peerValue(value);
  }
  return out;
}

/**
 * A peer's payload as the merges may take it: each top-level list cut to MAX_PEER_ROWS, each
 * list or map inside a row cut to MAX_PEER_LIST_ITEMS (and all of them together to
 * MAX_PEER_ITEMS), and dated rows later than tomorrow
 * (`latestForeignDay`) dropped — a session a peer dates 2099-01-01 would otherwise sort above
 * every real one, forever. A day is compared as text, as the merges sort, so no string that
 * sorts after tomorrow (`"9999"`, `"z"`) gets through either. Linear in the payload.
 */
function boundPeerPayload(payload: Record<string, unknown>, now: Date): Record<string, unknown> {
  const latest = latestForeignDay(now);
  const budget = { items: MAX_PEER_ITEMS };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (!Array.isArray(value)) {
      out[key] = value;
      continue;
    }
    const dateField = DATED_ROWS[key];
    const rows: unknown[] = [];
    for (const raw of value) {
      if (rows.length >= MAX_PEER_ROWS) break;
      if (dateField && raw && typeof raw === 'object') {
        const date = (raw as Record<string, unknown>)[dateField];
        if (typeof date === 'string' && date.slice(0, 10) > latest) continue;
      }
      rows.push(boundRow(raw, budget));
    }
    out[key] = rows;
  }
  return out;
}

/**
 * A count a peer sends (a workstream's sessions or notes), as a merge may add it: a whole
 * number from 0 to Number.MAX_SAFE_INTEGER. Negative, fractional parts, non-numbers and NaN
 * count 0 (or their whole part); anything larger, Infinity included, the maximum — so no
 * peer can make a merged count negative, inexact, or `null` in JSON.
 */
export function peerCount(value: unknown): number {
  const count = Number(value);
  if (Number.isNaN(count) || count <= 0) return 0;
  return Math.min(Math.floor(count), Number.MAX_SAFE_INTEGER);
}

/** Two counts added, never past Number.MAX_SAFE_INTEGER. */
export function addCounts(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

/** Every answer's payload bounded (see `boundPeerPayload`), and its secret values redacted. */
export function boundAnswers(answers: readonly PeerAnswer[], now: Date): PeerAnswer[] {
  return answers.map((answer) =>
    answer.payload ? { ...answer, payload: redactSecretsIn(boundPeerPayload(answer.payload, now)) } : answer,
  );
}

/** An agent filter that names a peer's agent: `peer:<peer>:<agent>` → its parts. */
export function peerAgentFilter(agent: string | null | undefined): { peer: string; agent: string } | null {
  if (!agent?.startsWith(PEER_PREFIX)) return null;
  const rest = agent.slice(PEER_PREFIX.length);
  const split = rest.indexOf(':');
  if (split <= 0 || split === rest.length - 1) return null;
  return { peer: rest.slice(0, split), agent: rest.slice(split + 1) };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function answered(answers: readonly PeerAnswer[]): { peer: string; payload: Record<string, unknown> }[] {
  return answers
    .filter((answer) => answer.ok && answer.payload)
    .map((answer) => ({ peer: answer.peer, payload: answer.payload! }));
}

export function mergeAgentIds(local: readonly string[], answers: readonly PeerAnswer[]): string[] {
  const all = new Set(local);
  for (const { peer, payload } of answered(answers))
    for (const agent of strings(payload.agents)) all.add(tagAgent(peer, agent));
  return [...all].sort();
}

/** Peer entity matches folded into the local ones by lower-cased name, agents tagged. */
export function mergeEntityMatches(
  local: readonly EntityMatch[],
  answers: readonly PeerAnswer[],
  field = 'matches',
): EntityMatch[] {
  const merged = local.map((match) => ({
    ...match,
    agents: [...match.agents],
    types: [...match.types],
    summaries: { ...match.summaries },
    tags: [...match.tags],
  }));
  // Each merged match's lists with a Set beside them: one lookup per item, never a scan.
  const byKey = new Map<string, { match: EntityMatch; agents: Set<string>; types: Set<string>; tags: Set<string> }>();
  for (const match of merged) {
    const key = match.name.toLowerCase();
    if (!byKey.has(key))
      byKey.set(key, { match, agents: new Set(match.agents), types: new Set(match.types), tags: new Set(match.tags) });
  }
  const addTo = (list: string[], seen: Set<string>, value: string) => {
    if (seen.has(value)) return;
    seen.add(value);
    list.push(value);
  };
  for (const { peer, payload } of answered(answers)) {
    const matches = Array.isArray(payload[field]) ? (payload[field] as unknown[]) : [];
    for (const raw of matches) {
      if (!raw || typeof raw !== 'object' || typeof (raw as EntityMatch).name !== 'string') continue;
      const match = raw as EntityMatch;
      let target = byKey.get(match.name.toLowerCase());
      if (!target) {
        const fresh: EntityMatch = { name: match.name, agents: [], types: [], summaries: {}, tags: [] };
        target = { match: fresh, agents: new Set(), types: new Set(), tags: new Set() };
        byKey.set(match.name.toLowerCase(), target);
        merged.push(fresh);
      }
      for (const agent of strings(match.agents)) addTo(target.match.agents, target.agents, tagAgent(peer, agent));
      for (const type of strings(match.types)) addTo(target.match.types, target.types, type);
      for (const tag of strings(match.tags)) addTo(target.match.tags, target.tags, tag);
      const summaries = match.summaries && typeof match.summaries === 'object' ? match.summaries : {};
      for (const [agent, summary] of Object.entries(summaries)) {
        if (typeof summary === 'string') target.match.summaries[tagAgent(peer, agent)] ??= summary;
      }
    }
  }
  return merged;
}

/** Peer sessions tagged, deduplicated by (date, cwd, agent) against what is already there. */
export function peerSessions(answers: readonly PeerAnswer[], field = 'sessions'): SessionRef[] {
  const out: SessionRef[] = [];
  for (const { peer, payload } of answered(answers)) {
    const rows = Array.isArray(payload[field]) ? (payload[field] as unknown[]) : [];
    for (const raw of rows) {
      if (!raw || typeof raw !== 'object') continue;
      const row = raw as Record<string, unknown>;
      if (typeof row.date !== 'string' || typeof row.agent !== 'string') continue;
      const ref: SessionRef = {
        agent: tagAgent(peer, row.agent),
        date: row.date,
        cwd: typeof row.cwd === 'string' ? row.cwd : null,
        project_focus: strings(row.project_focus),
      };
      if ('key_actions' in row) ref.key_actions = strings(row.key_actions);
      if ('files_touched' in row) ref.files_touched = strings(row.files_touched);
      out.push(ref);
    }
  }
  return out;
}

export function dedupeSessions(rows: readonly SessionRef[]): SessionRef[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify([row.date, row.cwd, row.agent]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** list_recent_work order: newest first, equal days by agent id descending. */
export function byRecencyRef(a: SessionRef, b: SessionRef): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.agent !== b.agent) return a.agent < b.agent ? 1 : -1;
  return 0;
}

/** get_cross_agent_summary order: newest first, equal days keep their order. */
export function byDateRef(a: SessionRef, b: SessionRef): number {
  return a.date === b.date ? 0 : a.date < b.date ? 1 : -1;
}

/** How the peers of a fanned-out recognition answered. */
export type PeerReport = {
  peer_latencies_us: Record<string, number | null>;
  peers_queried: number;
  peers_responded: number;
  peers_timed_out: number;
};

/** The per-peer report recognition carries when peers exist. */
export function peerReport(answers: readonly PeerAnswer[]): PeerReport {
  const latencies: Record<string, number | null> = {};
  for (const answer of answers) latencies[answer.peer] = answer.ok ? answer.latency_us : null;
  return {
    peer_latencies_us: latencies,
    peers_queried: answers.length,
    peers_responded: answers.filter((answer) => answer.ok).length,
    peers_timed_out: answers.filter((answer) => answer.timed_out).length,
  };
}

export type { UnreachablePeer };

/** Which peers did not answer, for payloads that report reachability. */
export function unreachable(answers: readonly PeerAnswer[]): UnreachablePeer[] {
  return answers
    .filter((answer) => !answer.ok && !answer.not_offered)
    .map((answer) => ({ peer: answer.peer, timed_out: answer.timed_out, error: answer.error ?? null }));
}

/** What mergeExports reads of the local export envelope. */
type ExportEnvelope = { machine: string; agents: readonly Record<string, unknown>[] };

/** One library a federated export asked (this machine or a peer) and whether it answered. */
export interface ExportSource {
  name: string;
  kind: 'local' | 'peer';
  reachable: boolean;
  error: string | null;
}

/** A federated export: the local envelope with every peer's agents added as sent (re-tagged), and who answered. */
export type FederatedExport<L extends ExportEnvelope> = Omit<L, 'agents'> & {
  agents: Record<string, unknown>[];
  sources: ExportSource[];
};

/**
 * A federated export (`bourdon agents --export --federated`), merged caller-side: each peer's
 * agents are re-tagged here. A peer's own `machine`, `source` and `source_kind` claims are
 * never trusted: provenance is the peer name this machine configured.
 */
export function mergeExports<L extends ExportEnvelope>(
  local: L,
  answers: readonly PeerAnswer[],
  now: Date = new Date(),
): FederatedExport<L> {
  const agents: Record<string, unknown>[] = [...local.agents];
  const sources: ExportSource[] = [{ name: local.machine, kind: 'local', reachable: true, error: null }];
  // The future-date rule of boundPeerPayload, for the dates inside an exported agent: a peer
  // cannot make its agent look the freshest ("in 73 years") by dating it 2099.
  const latest = latestForeignDay(now);
  const afterTomorrow = (value: unknown) => typeof value === 'string' && value.slice(0, 10) > latest;
  const notAfterTomorrow = (value: unknown) => (afterTomorrow(value) ? null : value);
  for (const answer of boundAnswers(answers, now)) {
    sources.push({
      name: answer.peer,
      kind: 'peer',
      reachable: answer.ok,
      error: answer.ok ? null : (answer.error ?? 'unreachable'),
    });
    if (!answer.ok || !answer.payload) continue;
    const rows = Array.isArray(answer.payload.agents) ? (answer.payload.agents as unknown[]) : [];
    for (const raw of rows) {
      if (!raw || typeof raw !== 'object' || typeof (raw as { id?: unknown }).id !== 'string') continue;
      const row = raw as Record<string, unknown>;
      const dated: Record<string, unknown> = {};
      for (const key of ['last_updated', 'freshest_session_date'])
        if (key in row) dated[key] = notAfterTomorrow(row[key]);
      if (Array.isArray(row.recent_activity))
        dated.recent_activity = row.recent_activity.filter(
          (item) => !(item && typeof item === 'object' && afterTomorrow((item as { date?: unknown }).date)),
        );
      agents.push({
        ...row,
        ...dated,
        id: tagAgent(answer.peer, row.id as string),
        source: `${PEER_PREFIX}${answer.peer}`,
        source_kind: 'peer',
      });
    }
  }
  return { ...local, agents, sources };
}
