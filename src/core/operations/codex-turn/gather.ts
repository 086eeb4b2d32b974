/**
 * The candidates of a Codex turn brief, as the engine gathers them: the library's entities and
 * sessions visible at the level, then Codex's newest threads; candidates of one kind and name
 * merged into one (the first stays, unless a later one matches the prompt strictly better and
 * replaces it; the others lend it their agents and evidence).
 *
 * The engine rebuilds and scores every row on every turn. Here the library is prepared once per
 * snapshot and level (library.ts), so a turn only looks at the rows the prompt can match
 * and, for a prompt asking to continue, the groups naming the repository; what a group's merge
 * lends is kept too. Nothing else can pass the recognition gate, so the brief is the same.
 */
import { containsWord } from '../../native/scrub.js';
import { absorb, type Candidate, type Contribution } from './candidates.js';
import {
  agentsOf,
  appendUnique,
  candidateOf,
  evidenceAt,
  nonBlank,
  summaryOf,
  type Contenders,
  type PreparedLibrary,
} from './library.js';
import { nameView, NO_MATCH, promptMatch, type PromptMatch, type PromptView } from './prompt-match.js';

/** What the members after `from` lend a group's survivor, kept per group and starting point. */
function lentAfter(library: PreparedLibrary, group: number, from: number): Contribution {
  let byStart = library.lent.get(group);
  if (!byStart) library.lent.set(group, (byStart = new Map()));
  let lent = byStart.get(from);
  if (!lent) {
    const agents: string[] = [];
    const evidence: string[] = [];
    const agentSeen = new Set<string>();
    const evidenceSeen = new Set<string>();
    for (const member of library.groups[group]!.slice(from + 1)) {
      for (const agent of agentsOf(library.entries[member]!)) appendUnique(agents, agentSeen, agent);
      for (const item of evidenceAt(library, member)) appendUnique(evidence, evidenceSeen, item);
    }
    byStart.set(from, (lent = { sourceAgents: agents, evidence }));
  }
  return lent;
}

/** The text the continuation gate looks for the repository in: name, summary and focus, lower-cased. */
function gateText(library: PreparedLibrary, group: number): string {
  let text = library.gateTexts[group];
  if (text === undefined) {
    // Every group has a member.
    const first = library.groups[group]![0]!;
    const entry = library.entries[first]!;
    const focus = entry.kind === 'session' ? nonBlank(entry.session.project_focus) : [];
    text = [library.firstNames[first], summaryOf(library, first), ...focus].join(' ').toLowerCase();
    library.gateTexts[group] = text;
  }
  return text;
}

/** A group's contenders, worked out on first use. */
function contendersOf(library: PreparedLibrary, group: number): Contenders {
  let contenders = library.contenders[group];
  if (!contenders) {
    const members = library.groups[group]!;
    const lists: number[] = [];
    const firsts: number[] = [];
    const seen = new Set<number>();
    members.forEach((entry, i) => {
      const list = library.listOf[entry]!;
      if (!seen.has(list)) {
        seen.add(list);
        lists.push(list);
        firsts.push(i);
      }
    });
    library.contenders[group] = contenders = { lists: Int32Array.from(lists), members: Int32Array.from(firsts) };
  }
  return contenders;
}

/**
 * The groups a continuation prompt keeps for a repository whatever the prompt says: those whose
 * first member names it as a word (name, summary and focus). Kept per repository name: a Codex
 * session asks about one repository turn after turn.
 */
function continuingGroups(library: PreparedLibrary, repo: string): readonly number[] {
  let groups = library.continuing.get(repo);
  if (!groups) {
    const found: number[] = [];
    for (let group = 0; group < library.groups.length; group++) {
      const text = gateText(library, group);
      if (text.includes(repo) && containsWord(text, repo)) found.push(group);
    }
    if (library.continuing.size >= 16) library.continuing.clear();
    library.continuing.set(repo, (groups = found));
  }
  return groups;
}

/** A candidate with the prompt component it won its place with. */
export interface Gathered {
  candidate: Candidate;
  prompt: PromptMatch;
}

/**
 * The merged candidates a turn can keep, in the engine's order (first appearance of each kind and
 * name): every group one of whose members the prompt matches, and for a continuation prompt the
 * non-thread groups whose first member names the repository as a word (`continuationRepo`,
 * lower-cased). The rest cannot pass the recognition gate, so they are never built.
 */
export function gatherCandidates(
  library: PreparedLibrary,
  threads: readonly Candidate[],
  prompt: PromptView,
  continuationRepo: string | null,
): Gathered[] {
  // Each name list is matched once per turn. The scratch arrays are the library's: gathering
  // is synchronous, so turns never interleave here.
  const turn = (library.turn = (library.turn + 1) >>> 0 || 1);
  const { seenIn, matches } = library;
  // Every name inside the prompt, whether or not it shares a token with it ("bourdon" in
  // "bourdonish"): found by its first characters at each place in the prompt, then looked up
  // whole at each length such names have.
  const { lower } = prompt;
  const inPrompt = new Set<string>();
  const inPromptLists: (readonly number[])[] = [];
  for (let i = 0; i < lower.length; i++) {
    for (let width = 1; width <= 3 && i + width <= lower.length; width++) {
      const bucket = library.byPrefix.get(lower.slice(i, i + width));
      if (!bucket) continue;
      for (const length of bucket.lengths) {
        if (length < width || i + length > lower.length) continue;
        const name = lower.slice(i, i + length);
        const lists = bucket.lists.get(name);
        if (!lists) continue;
        inPrompt.add(name);
        inPromptLists.push(lists);
      }
    }
  }
  const considered: number[] = [];
  const consider = (list: number): void => {
    if (seenIn[list] === turn) return;
    seenIn[list] = turn;
    matches[list] = promptMatch(library.nameLists[list]!, prompt, inPrompt);
    considered.push(list);
  };
  const matchOf = (list: number): PromptMatch => (seenIn[list] === turn ? matches[list]! : NO_MATCH);
  for (const lists of inPromptLists) for (const list of lists) consider(list);
  // The other names that can match share a token with the prompt.
  for (const token of prompt.tokenSet) for (const list of library.byToken.get(token) ?? []) consider(list);
  const wanted = new Set<number>();
  for (const list of considered)
    if (matches[list]!.score > 0) for (const group of library.listGroups[list]!) wanted.add(group);
  if (continuationRepo) for (const group of continuingGroups(library, continuationRepo)) wanted.add(group);
  const gathered: Gathered[] = [...wanted]
    .sort((a, b) => a - b)
    .map((group) => {
      const members = library.groups[group]!;
      // The survivor is the last member to beat every one before it; those after it lend. A
      // member's match is its name list's, so only each list's first member can be the one.
      let survivor = 0;
      let best = matchOf(library.listOf[members[0]!]!);
      if (members.length > 1) {
        const { lists, members: firsts } = contendersOf(library, group);
        for (let i = 1; i < lists.length; i++) {
          const match = matchOf(lists[i]!);
          if (match.score > best.score) {
            survivor = firsts[i]!;
            best = match;
          }
        }
      }
      const kept = candidateOf(library, members[survivor]!);
      if (survivor === members.length - 1) return { candidate: kept, prompt: best };
      const candidate = { ...kept };
      absorb(candidate, lentAfter(library, group, survivor));
      return { candidate, prompt: best };
    });
  // Threads: a handful per turn, merged among themselves (no library row is a thread). Merging
  // replaces a candidate's lists, so each turn works on copies of the kept candidates.
  const threadGroups = new Map<string, { candidate: Candidate; prompt: PromptMatch }>();
  for (const thread of threads) {
    const key = thread.lowerName;
    const match = promptMatch([nameView(thread.name)], prompt);
    const current = threadGroups.get(key);
    if (!current || match.score > current.prompt.score)
      threadGroups.set(key, { candidate: { ...thread }, prompt: match });
    else absorb(current.candidate, thread);
  }
  gathered.push(...threadGroups.values());
  return gathered;
}
