/**
 * What a candidate of a Codex turn brief is, whichever source it comes from (the library's
 * entities and sessions, library.ts; Codex's threads, threads.ts): its fields, its
 * cleaned texts, and what a candidate merged away lends the one that stays.
 */
import { scrubNativeText } from '../../native/scrub.js';

export type CandidateKind = 'project' | 'preference' | 'handoff' | 'entity' | 'session' | 'thread';
export type CandidateSource = 'codex_l5' | 'l6_federation' | 'codex_rollout' | 'codex_state';

export interface Candidate {
  kind: CandidateKind;
  name: string;
  summary: string;
  source: CandidateSource;
  sourceAgents: readonly string[];
  aliases: readonly string[];
  dateText: string | null;
  cwd: string | null;
  projectFocus: readonly string[];
  filesTouched: readonly string[];
  evidence: readonly string[];
  /** Name, summary, project focus and cwd, lower-cased: what the repository is looked for in. */
  text: string;
  /** The name lower-cased. */
  lowerName: string;
}

/** `_safe_summary`: the engine's native-memory scrubber, 220 code points unless told. */
export const clean = (value: string, limit = 220): string => scrubNativeText(value, limit);

/** The text `cwd_repo` scoring searches: name, summary, focus and cwd, lower-cased. */
export function matchText(name: string, summary: string, focus: readonly string[], cwd: string | null): string {
  return [name, summary, ...focus, cwd ?? ''].join(' ').toLowerCase();
}

/** What a merged-away candidate lends the survivor: its agents and evidence, in order. */
export interface Contribution {
  readonly sourceAgents: readonly string[];
  readonly evidence: readonly string[];
}

/** The survivor with what is lent added to its own lists (new lists: the old ones may be shared). */
export function absorb(survivor: Candidate, lent: Contribution): void {
  const agents = new Set(survivor.sourceAgents);
  const newAgents = lent.sourceAgents.filter((agent) => !agents.has(agent));
  if (newAgents.length) survivor.sourceAgents = [...survivor.sourceAgents, ...newAgents];
  const evidence = new Set(survivor.evidence);
  const newEvidence = lent.evidence.filter((item) => !evidence.has(item));
  if (newEvidence.length) survivor.evidence = [...survivor.evidence, ...newEvidence];
}
