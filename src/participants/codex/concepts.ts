/**
 * Fallback concepts: a fixed set of phrases the engine recognises in thread names, user prompts
 * and raw rollout text (Bourdon, Continuo, runtime recognition, …), each with fixed aliases. A
 * cheap lower-case keyword check runs before each exact (Unicode word-boundary) pattern, so a
 * 100 MB session folder costs one pass per keyword rather than one regex per pattern per file.
 */
import { PyPattern, dedupe, lowerKey, normalizeText } from './text.js';

interface ConceptPattern {
  readonly label: string;
  /** A literal every match contains (global, case-insensitive): where to try the exact pattern. */
  readonly keyword: RegExp;
  /** How many characters a match can start before its keyword. */
  readonly leads: readonly number[];
  /** The engine's pattern, tried only at those positions. */
  readonly exact: PyPattern;
}

function concept(label: string, keyword: string, leads: readonly number[], pattern: string): ConceptPattern {
  // Non-Unicode ignore-case is a faster scan, and no keyword holds `k` or `s` (the letters whose
  // Unicode case folding includes non-ASCII characters).
  return { label, keyword: new RegExp(keyword, 'gi'), leads, exact: new PyPattern(pattern, 'i') };
}

const COMPOUND = 'Bourdon recognition first runtime layer';

const PATTERNS = [
  concept(COMPOUND, 'bourdon recognition', [0], '\\bbourdon recognition[- ]first runtime layer\\b'),
  concept('Bourdon', 'bourdon', [0], '\\bbourdon\\b'),
  concept('Continuo', 'continuo', [0], '\\bcontinuo\\b'),
  // `run time ` / `run-time ` / `runtime ` before the keyword: 8 or 9 characters.
  concept('runtime recognition', 'recognition', [8, 9], '\\brun[- ]?time[- ]recognition\\b'),
  concept('recognition first runtime layer', 'recognition', [0], '\\brecognition[- ]first runtime layer\\b'),
  concept('recognition timing layer', 'recognition timing layer', [0], '\\brecognition timing layer\\b'),
  concept('natural AI communication', 'natural ai communication', [0], '\\bnatural ai communication\\b'),
  concept('native Codex memory', 'native codex memor', [0], '\\bnative codex memor(?:y|ies)\\b'),
] as const;

/**
 * Does the engine's pattern match somewhere in `text`? Every match holds the keyword at a known
 * offset, so the exact pattern is tried there only: one fast literal scan per pattern instead of
 * a Unicode-boundary regex over the whole (2 MB) text.
 */
function matches(text: string, entry: ConceptPattern): boolean {
  const { keyword, exact } = entry;
  keyword.lastIndex = 0;
  for (let found = keyword.exec(text); found !== null; found = keyword.exec(text)) {
    for (const lead of entry.leads) {
      if (found.index < lead) continue;
      if (exact.testAt(text, found.index - lead)) return true;
    }
  }
  return false;
}

/** The concepts named in some texts (the engine's `_extract_fallback_concepts`). */
export function conceptsIn(texts: readonly string[]): string[] {
  const combined = texts.join('\n');
  const hits = PATTERNS.map((entry) => matches(combined, entry));
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
