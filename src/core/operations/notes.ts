/**
 * Notes (spec §2, §5.11): list_notes, and the helpers behind `bourdon note add` (commits one
 * note) and `bourdon note show` (reads one note whole by its id). Listing is paged exactly like
 * list_recent_work (default window 14 days, cutoff kept in the cursor); note text and titles
 * are redacted (§7).
 */
import { canSee } from '../trust/access.js';
import { commitToFederation } from '../writes/commit.js';
import { agentsInScope, type OperationContext } from '../context.js';
import type { AgentRecord } from '../store/library.js';
import { foldKey, type Note } from '../store/manifest.js';
import { answered, peerAgentFilter, tagAgent } from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import { access, askPeers, peerAccessArgs, withReachability } from './read-common.js';
import type { Answer, listNotesAnswer, NoteRef } from './answers.js';
import { planPage, takePage } from './paging.js';
import { MAX_PAGE_SIZE } from './inputs.js';
import { coded, type Failed, type OneOf } from '../payload.js';
import type { ListNotesInput } from './inputs.js';
import type { CommitOutput } from '../writes/commit.js';
import { readNullable, readText } from '../trust/redaction.js';

export interface DatedNote {
  agent: string;
  note: Note;
}

/** Newest first: by day, then by the written date (a datetime after a bare day), then agent id descending. */
function byNoteRecency(a: DatedNote, b: DatedNote): number {
  if (a.note.day !== b.note.day) return a.note.day < b.note.day ? 1 : -1;
  if (a.note.date !== b.note.date) return a.note.date < b.note.date ? 1 : -1;
  if (a.agent !== b.agent) return a.agent < b.agent ? 1 : -1;
  return 0;
}

const notesCache = new WeakMap<readonly AgentRecord[], DatedNote[]>();

/** Every note of these agents, newest first (cached per snapshot). */
function notesByRecency(agents: readonly AgentRecord[]): DatedNote[] {
  let sorted = notesCache.get(agents);
  if (!sorted) {
    sorted = [];
    for (const agent of agents) for (const note of agent.notes) sorted.push({ agent: agent.id, note });
    sorted.sort(byNoteRecency);
    notesCache.set(agents, sorted);
  }
  return sorted;
}

function filterKey(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const key = foldKey(value);
  return key === '' ? null : key;
}

export type { NoteRef };

function noteRef(agent: string, note: Note): NoteRef {
  return {
    agent,
    date: note.date,
    title: readNullable(note.title),
    text: readText(note.text),
    tags: [...note.tags],
    project_focus: [...note.project_focus],
  };
}

export type ListNotesAnswer = Answer<typeof listNotesAnswer>;
export type ListNotesOutput = OneOf<ListNotesAnswer | Failed<ListNotesAnswer>>;

export async function listNotes(ctx: OperationContext, args: ListNotesInput): Promise<ListNotesOutput> {
  const level = access(ctx, args, 'public');
  const base = {
    since: args.since ?? null,
    agent: args.agent ?? null,
    tag: args.tag ?? null,
    project: args.project ?? null,
    access_level: level.echoed,
    include_private: args.include_private ?? false,
    limit: args.limit ?? null,
    cursor: args.cursor ?? null,
  };
  if (level.error) return { error: level.error, ...base, notes: [], next_cursor: null, has_more: false };
  const plan = planPage(ctx, args);
  const empty = { notes: [], next_cursor: null, has_more: false };
  if ('error' in plan) return { error: plan.error, ...base, ...empty };
  const onPeer = peerAgentFilter(args.agent);
  const agents = agentsInScope(ctx);
  const agentFilter = args.agent ?? null;
  const tag = filterKey(args.tag);
  const project = filterKey(args.project);
  function* select(cutoff: string): Generator<DatedNote> {
    if (onPeer) return;
    for (const dated of notesByRecency(agents)) {
      const { note } = dated;
      if (note.day < cutoff) return; // newest first: nothing older qualifies
      if (agentFilter !== null && dated.agent !== agentFilter) continue;
      if (!canSee(level.effective, note.visibility)) continue;
      if (tag !== null && !note.tags.some((candidate) => foldKey(candidate) === tag)) continue;
      if (project !== null && !note.project_focus.some((candidate) => foldKey(candidate) === project)) continue;
      yield dated;
    }
  }
  const local = select(plan.cutoff);
  // A plain agent filter names a local agent; `peer:<peer>:<agent>` names one peer's agent.
  const answers =
    onPeer || !args.agent
      ? await askPeers(
          ctx,
          args,
          'list_notes',
          peerAccessArgs(level, {
            since: plan.cutoff,
            agent: onPeer ? onPeer.agent : null,
            tag: args.tag ?? null,
            project: args.project ?? null,
            limit: MAX_PAGE_SIZE,
          }),
        )
      : null;
  if (onPeer && !answers) return { ...base, ...empty };
  let ordered: Iterable<NoteRef>;
  if (!answers) {
    ordered = (function* () {
      for (const { agent, note } of local) yield noteRef(agent, note);
    })();
  } else {
    const fromPeers = peerNotes(onPeer ? answers.filter((answer) => answer.peer === onPeer.peer) : answers);
    ordered = dedupeNotes(
      [...[...local].map(({ agent, note }) => noteRef(agent, note)), ...fromPeers].sort(byNoteRefRecency),
    );
  }
  const page = takePage(plan, ordered);
  return withReachability(
    { ...base, notes: page.items, next_cursor: page.next_cursor, has_more: page.has_more },
    answers,
  );
}

/** Peer notes, tagged with provenance; already redacted by the peer and redacted again here. */
function peerNotes(answers: readonly PeerAnswer[]): NoteRef[] {
  const out: NoteRef[] = [];
  for (const { peer, payload } of answered(answers)) {
    for (const raw of Array.isArray(payload.notes) ? (payload.notes as unknown[]) : []) {
      const row = raw as Record<string, unknown>;
      if (!row || typeof row.date !== 'string' || typeof row.agent !== 'string' || typeof row.text !== 'string')
        continue;
      const list = (value: unknown) =>
        Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
      out.push({
        agent: tagAgent(peer, row.agent),
        date: row.date,
        title: readNullable(row.title),
        text: readText(row.text),
        tags: list(row.tags),
        project_focus: list(row.project_focus),
      });
    }
  }
  return out;
}

function dedupeNotes(rows: NoteRef[]): NoteRef[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = JSON.stringify([row.date, row.text, row.agent]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function byNoteRefRecency(a: NoteRef, b: NoteRef): number {
  const ad = a.date.slice(0, 10);
  const bd = b.date.slice(0, 10);
  if (ad !== bd) return ad < bd ? 1 : -1;
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.agent !== b.agent) return a.agent < b.agent ? 1 : -1;
  return 0;
}
// ---------------------------------------------------------------------------------------
// One note by its id. The spec gives notes no id (they merge by date and text), so the id is
// the note's place in its agent's manifest: `codex:2` is codex's second note as read. A merge
// appends new notes and never reorders old ones, so an id holds until the manifest is
// replaced, rolled back or edited by hand. It holds no text, so it shows nothing a level
// hides beyond that the note exists.

function noteId(agent: string, position: number): string {
  return `${agent}:${position}`;
}

/** `<agent>:<n>` split at its last colon, or null when it is not one. */
export function parseNoteId(id: string): { agent: string; position: number } | null {
  const match = /^(.+):(\d{1,9})$/.exec(id.trim());
  if (!match || Number(match[2]) < 1) return null;
  return { agent: match[1]!, position: Number(match[2]) };
}

export interface ShowNoteArgs {
  id: string;
  access_level?: string | null;
  include_private?: boolean | null;
}

export type ShownNote = NoteRef & { id: string; visibility: string };
export interface ShowNoteAnswer {
  id: string;
  access_level: string;
  include_private: boolean;
  note: ShownNote;
}
export type ShowNoteOutput = OneOf<ShowNoteAnswer | Failed<Omit<ShowNoteAnswer, 'note'>>>;

/** What an agent's notes are called, for an id that names none of them. */
function heldNotes(agent: AgentRecord): string {
  const count = agent.notes.length;
  if (count === 0) return `${agent.id} has no notes`;
  if (count === 1) return `the only note of ${agent.id} is ${noteId(agent.id, 1)}`;
  return `the notes of ${agent.id} are ${noteId(agent.id, 1)} to ${noteId(agent.id, count)}`;
}

/**
 * One local note whole, redacted as list_notes redacts it, at the caller's level (default
 * public, as list_notes): its id, agent, date, title, text, tags, project_focus and visibility.
 */
export async function showNote(ctx: OperationContext, args: ShowNoteArgs): Promise<ShowNoteOutput> {
  const level = access(ctx, args, 'public');
  const base = { id: args.id, access_level: level.echoed, include_private: args.include_private ?? false };
  if (level.error) return { error: level.error, ...base };
  const parsed = parseNoteId(args.id);
  if (!parsed) return { error: 'a note id is <agent>:<n>, like codex:2 (`bourdon list-notes` shows them)', ...base };
  const agent = agentsInScope(ctx).find((record) => record.id === parsed.agent);
  if (!agent) return coded({ error: `no agent "${parsed.agent}" in this library`, ...base }, 'not_found');
  const note = agent.notes[parsed.position - 1];
  if (!note) return coded({ error: `no note ${args.id}; ${heldNotes(agent)}`, ...base }, 'not_found');
  if (!canSee(level.effective, note.visibility))
    return coded(
      { error: `note ${args.id} is not visible at access level ${level.effective}`, ...base },
      'not_visible',
    );
  const id = noteId(agent.id, parsed.position);
  return { ...base, id, note: { id, ...noteRef(agent.id, note), visibility: note.visibility } };
}

/**
 * The id of each listed note, where it is a local agent's (null for a peer's): the first note
 * of that agent with the row's date and text as list_notes shows it.
 */
export function noteIdsOf(ctx: OperationContext, rows: readonly NoteRef[]): (string | null)[] {
  const byAgent = new Map(ctx.store.snapshot().agents.map((agent) => [agent.id, agent]));
  const positions = new Map<string, Map<string, number>>();
  const positionsOf = (agent: AgentRecord): Map<string, number> => {
    let byKey = positions.get(agent.id);
    if (!byKey) {
      const fresh = new Map<string, number>();
      agent.notes.forEach((note, i) => {
        const key = JSON.stringify([note.date, readText(note.text)]);
        if (!fresh.has(key)) fresh.set(key, i + 1);
      });
      positions.set(agent.id, (byKey = fresh));
    }
    return byKey;
  };
  return rows.map((row) => {
    const agent = byAgent.get(row.agent);
    const position = agent && positionsOf(agent).get(JSON.stringify([row.date, row.text]));
    return agent && position ? noteId(agent.id, position) : null;
  });
}

export interface AddNoteArgs {
  agent_id: string;
  text: string;
  title?: string | null;
  date?: string | null;
  tags?: string[];
  project_focus?: string[];
  visibility?: string | null;
  agent_type?: string | null;
}

/** Local date and time with its offset: the day as written is the local calendar day. */
function localIsoMinute(moment: Date): string {
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const offset = -moment.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}` +
    `T${pad(moment.getHours())}:${pad(moment.getMinutes())}:${pad(moment.getSeconds())}` +
    `${sign}${pad(offset / 60)}:${pad(offset % 60)}`
  );
}

/** Commits one note to an agent's manifest (dated now unless a date is given). */
export async function addNote(ctx: OperationContext, args: AddNoteArgs): Promise<CommitOutput> {
  const note: Record<string, unknown> = { date: args.date ?? localIsoMinute(ctx.now()) };
  if (args.title) note.title = args.title;
  note.text = args.text;
  if (args.tags && args.tags.length) note.tags = [...args.tags];
  if (args.project_focus && args.project_focus.length) note.project_focus = [...args.project_focus];
  if (args.visibility) note.visibility = args.visibility;
  return commitToFederation(ctx, {
    agent_id: args.agent_id,
    agent_type: args.agent_type ?? null,
    instance: null,
    role_narrative: null,
    entities: null,
    sessions: null,
    notes: [note],
    mode: 'merge',
  });
}
