/**
 * How a Codex turn's prompt is matched against a candidate's names, as the engine scores its
 * prompt component: the prompt and each name tokenised once, then the best of a whole match, a
 * name inside the prompt, a run of the prompt's tokens, or shared meaningful terms.
 */
import { pyStrip } from '../../native/scrub.js';

const TOKEN = /[a-zA-Z0-9]+/g;

/** Runs of ASCII letters and digits, lower-cased. */
function tokens(value: string): string[] {
  return (value.match(TOKEN) ?? []).map((token) => token.toLowerCase());
}

const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about again am an and anything are as at be can do for from how i is it keep like me new of on or please ' +
    'remind should tell the there to was we what whats with working'
  ).split(' '),
);

/** The prompt as scoring reads it, tokenised once per turn. */
export interface PromptView {
  readonly text: string;
  readonly lower: string;
  readonly tokens: readonly string[];
  readonly tokenSet: ReadonlySet<string>;
  /** Tokens of more than two characters that are not stop words. */
  readonly terms: ReadonlySet<string>;
}

export function promptView(prompt: string): PromptView {
  const all = tokens(prompt);
  return {
    text: prompt,
    lower: prompt.toLowerCase(),
    tokens: all,
    tokenSet: new Set(all),
    terms: new Set(all.filter((token) => !STOPWORDS.has(token) && token.length > 2)),
  };
}

/** A name as the prompt is matched against it, worked out once per distinct name. */
export interface NameView {
  readonly raw: string;
  /** Lower-cased, then stripped. */
  readonly lower: string;
  readonly tokens: readonly string[];
  /** Its distinct tokens that are not stop words. */
  readonly terms: readonly string[];
}

export function nameView(raw: string): NameView {
  const all = tokens(raw);
  return {
    raw,
    lower: pyStrip(raw.toLowerCase()),
    tokens: all,
    terms: [...new Set(all)].filter((token) => !STOPWORDS.has(token)),
  };
}

function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let i = 0; i < needle.length; i++) if (haystack[start + i] !== needle[i]) continue outer;
    return true;
  }
  return false;
}

export interface PromptMatch {
  score: number;
  /** The first name reaching the score ('' without a match): the reason says "prompt matched <name>". */
  name: string;
}

export const NO_MATCH: PromptMatch = { score: 0, name: '' };

/**
 * The prompt component: the best over the candidate's name, aliases and project focus — the
 * whole prompt 40, inside the prompt 36, its tokens a run of the prompt's 30, else 12 per shared
 * meaningful term (at most 24). The first name reaching the best is the one named. `inPrompt`,
 * when given, holds every name of these lists that occurs in the prompt (the library's, found by
 * prefix), so no name is searched for.
 */
export function promptMatch(
  names: readonly NameView[],
  prompt: PromptView,
  inPrompt?: ReadonlySet<string>,
): PromptMatch {
  let best = 0;
  let bestName = '';
  for (const name of names) {
    if (!name.lower) continue;
    let score: number;
    if (inPrompt ? inPrompt.has(name.lower) : prompt.lower.includes(name.lower))
      score = prompt.lower === name.lower ? 40 : 36;
    // A run of the prompt's tokens starts with one of them (a set lookup rules most names out).
    else if (
      name.tokens[0] !== undefined &&
      prompt.tokenSet.has(name.tokens[0]) &&
      containsRun(prompt.tokens, name.tokens)
    )
      score = 30;
    else {
      let overlap = 0;
      for (const term of name.terms) if (prompt.terms.has(term)) overlap++;
      score = Math.min(24, overlap * 12);
    }
    if (score > best) {
      best = score;
      bestName = name.raw;
    }
  }
  return best ? { score: best, name: bestName } : NO_MATCH;
}
