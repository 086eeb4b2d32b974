/**
 * Fallback concepts: a fixed set of phrases the engine recognises in thread names, user prompts
 * and raw rollout text (Bourdon, Continuo, runtime recognition, …), each with fixed aliases. A
 * cheap lower-case keyword check runs before each exact (Unicode word-boundary) pattern, so a
 * 100 MB session folder costs one pass per keyword rather than one regex per pattern per file.
 */
import { dedupe, lowerKey, normalizeText, pyRegex } from './text.js';

interface ConceptPattern {
  readonly label: string;
  /** A lower-case literal every match contains. */
  readonly keyword: string;
  readonly pattern: RegExp;
}

const COMPOUND = 'Bourdon recognition first runtime layer';

const PATTERNS: readonly ConceptPattern[] = [
  { label: COMPOUND, keyword: 'bourdon', pattern: pyRegex('\\bbourdon recognition[- ]first runtime layer\\b', 'i') },
  { label: 'Bourdon', keyword: 'bourdon', pattern: pyRegex('\\bbourdon\\b', 'i') },
  { label: 'Continuo', keyword: 'continuo', pattern: pyRegex('\\bcontinuo\\b', 'i') },
  { label: 'runtime recognition', keyword: 'recognition', pattern: pyRegex('\\brun[- ]?time[- ]recognition\\b', 'i') },
  {
    label: 'recognition first runtime layer',
    keyword: 'recognition',
    pattern: pyRegex('\\brecognition[- ]first runtime layer\\b', 'i'),
  },
  {
    label: 'recognition timing layer',
    keyword: 'recognition',
    pattern: pyRegex('\\brecognition timing layer\\b', 'i'),
  },
  { label: 'natural AI communication', keyword: 'natural', pattern: pyRegex('\\bnatural ai communication\\b', 'i') },
  { label: 'native Codex memory', keyword: 'memor', pattern: pyRegex('\\bnative codex memor(?:y|ies)\\b', 'i') },
];

/** The concepts named in some texts (the engine's `_extract_fallback_concepts`). */
export function conceptsIn(texts: readonly string[]): string[] {
  const combined = texts.join('\n');
  const lower = combined.toLowerCase();
  const hit = (entry: ConceptPattern): boolean => lower.includes(entry.keyword) && entry.pattern.test(combined);
  const concepts: string[] = [];
  // "Bourdon" anywhere plus "recognition-first runtime layer" anywhere name the compound concept.
  if (hit(PATTERNS[1]) && hit(PATTERNS[4])) concepts.push(COMPOUND);
  for (const entry of PATTERNS) if (hit(entry)) concepts.push(entry.label);
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
