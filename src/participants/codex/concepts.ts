/**
 * Fallback concepts: a fixed set of phrases the engine recognises in thread names, user prompts
 * and raw rollout text (Bourdon, Continuo, runtime recognition, …), each with fixed aliases.
 */
import { PyPattern, dedupe, lowerKey, normalizeText } from './text.js';

/**
 * Literals every concept match contains. Non-Unicode ignore-case is the faster scan, and no
 * keyword holds `k` or `s` (the letters whose Unicode case folding reaches non-ASCII characters).
 */
const KEYWORDS = ['bourdon', 'continuo', 'recognition', 'natural ai communication', 'native codex memor'].map(
  (keyword) => new RegExp(keyword, 'gi'),
);

interface ConceptPattern {
  readonly label: string;
  /** Index into KEYWORDS: where to try the exact pattern. */
  readonly keyword: number;
  /** How many characters a match can start before its keyword. */
  readonly leads: readonly number[];
  /** The engine's pattern, tried only at those positions. */
  readonly exact: PyPattern;
}

function concept(label: string, keyword: number, leads: readonly number[], pattern: string): ConceptPattern {
  return { label, keyword, leads, exact: new PyPattern(pattern, 'i') };
}

const COMPOUND = 'Bourdon recognition first runtime layer';

const PATTERNS = [
  concept(COMPOUND, 0, [0], '\\bbourdon recognition[- ]first runtime layer\\b'),
  concept('Bourdon', 0, [0], '\\bbourdon\\b'),
  concept('Continuo', 1, [0], '\\bcontinuo\\b'),
  // `run time ` / `run-time ` / `runtime ` before the keyword: 8 or 9 characters.
  concept('runtime recognition', 2, [8, 9], '\\brun[- ]?time[- ]recognition\\b'),
  concept('recognition first runtime layer', 2, [0], '\\brecognition[- ]first runtime layer\\b'),
  concept('recognition timing layer', 2, [0], '\\brecognition timing layer\\b'),
  concept('natural AI communication', 3, [0], '\\bnatural ai communication\\b'),
  concept('native Codex memory', 4, [0], '\\bnative codex memor(?:y|ies)\\b'),
] as const;

/** Where a keyword occurs in the text. */
function occurrences(text: string, keyword: RegExp): number[] {
  const found: number[] = [];
  keyword.lastIndex = 0;
  for (let match = keyword.exec(text); match !== null; match = keyword.exec(text)) found.push(match.index);
  return found;
}

/**
 * The concepts named in some texts (the engine's `_extract_fallback_concepts`). Every match of a
 * concept's pattern holds its keyword at a known offset, so the exact (Unicode word-boundary)
 * pattern is tried only there: five literal scans of a 2 MB rollout head, not eight regexes.
 */
export function conceptsIn(texts: readonly string[]): string[] {
  const combined = texts.join('\n');
  const positions = KEYWORDS.map((keyword) => occurrences(combined, keyword));
  const hits = PATTERNS.map((entry) =>
    (positions[entry.keyword] ?? []).some((at) =>
      entry.leads.some((lead) => at >= lead && entry.exact.testAt(combined, at - lead)),
    ),
  );
  const concepts: string[] = [];
  // "Bourdon" anywhere plus "recognition-first runtime layer" anywhere name the compound concept.
  if (hits[1] && hits[4]) concepts.push(COMPOUND);
  PATTERNS.forEach((entry, i) => {
    if (hits[i]) concepts.push(entry.label);
  });
  return dedupe(concepts, lowerKey);
}

const RECOVERED_PREFIX = 'Recovered concept:';

/** Concepts a memory description records as `Recovered concept: X`. */
export function recoveredConcepts(descriptions: readonly string[]): string[] {
  const concepts: string[] = [];
  for (const description of descriptions) {
    if (!description.startsWith(RECOVERED_PREFIX)) continue;
    const concept = normalizeText(description.slice(RECOVERED_PREFIX.length));
    if (concept) concepts.push(concept);
  }
  return dedupe(concepts, lowerKey);
}

const ALIASES: Readonly<Record<string, readonly string[]>> = {
  'bourdon recognition first runtime layer': [
    'Bourdon',
    'Continuo',
    'runtime recognition',
    'runtime-recognition',
    'recognition first runtime layer',
    'recognition-first runtime layer',
  ],
  continuo: ['Bourdon'],
  'runtime recognition': [
    'run time recognition',
    'run-time recognition',
    'runtime-recognition',
    'recognition first runtime layer',
    'Bourdon recognition first runtime layer',
  ],
  'recognition first runtime layer': ['recognition-first runtime layer'],
  'native codex memory': ['native Codex memories'],
};

export function conceptAliases(concept: string): string[] {
  return [...(ALIASES[concept.toLowerCase()] ?? [])];
}

/** The name the engine gives a rollout that no index or database names. */
export function threadNameFromConcepts(concepts: readonly string[], date: string): string {
  if (concepts.includes(COMPOUND)) return COMPOUND;
  if (concepts.length > 0) return `Codex session about ${concepts.slice(0, 3).join(', ')}`;
  return `Codex session ${date}`;
}
