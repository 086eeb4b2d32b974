/**
 * Codex's distilled memory, parsed line by line into five sections (task groups, task titles,
 * preferences, keywords, descriptions): `memories/MEMORY.md` (minus Bourdon's own fallback
 * block), `memories/raw_memories.md` (also per thread), `memories/rollout_summaries/*.md` and
 * the `~/codex-brain` overlay. When all of it is empty the same shape is synthesised from the
 * session records (the fallback memory).
 */
import path from 'node:path';
import type { SourceReader } from '../kit/source-reader.js';
import { CODEX_WALK, compareParts, type CodexLocations } from './paths.js';
import { friendlyLabel, looksLikeMemoriesPath, projectKeyFromCwd } from './projects.js';
import type { SessionRecord } from './records.js';
import { LIMITS, scrub } from './scrubber.js';
import { PyPattern, lstrip, normalizeText, pyRegex, rstrip, splitLines, strip, stripChars } from './text.js';

const SECTION_KEYS = ['task_groups', 'task_titles', 'preferences', 'keywords', 'descriptions'] as const;
export type SectionKey = (typeof SECTION_KEYS)[number];

/** The five lists, each de-duplicated case-insensitively, first spelling kept. */
export class Sections {
  readonly lists: Record<SectionKey, string[]> = {
    task_groups: [],
    task_titles: [],
    preferences: [],
    keywords: [],
    descriptions: [],
  };
  private readonly seen: Record<SectionKey, Set<string>> = {
    task_groups: new Set(),
    task_titles: new Set(),
    preferences: new Set(),
    keywords: new Set(),
    descriptions: new Set(),
  };

  add(key: SectionKey, ...values: string[]): void {
    for (const value of values) {
      if (!value) continue;
      const marker = value.toLowerCase();
      if (this.seen[key].has(marker)) continue;
      this.seen[key].add(marker);
      this.lists[key].push(value);
    }
  }

  extend(other: Sections): void {
    for (const key of SECTION_KEYS) this.add(key, ...other.lists[key]);
  }

  count(): number {
    return SECTION_KEYS.reduce((total, key) => total + this.lists[key].length, 0);
  }
}

export interface MemoryData {
  readonly main: Sections;
  /** Per-thread context (from `raw_memories.md`, or the fallback), keyed by thread id. */
  readonly threads: Map<string, Sections>;
}

export function emptyMemory(): MemoryData {
  return { main: new Sections(), threads: new Map() };
}

function threadSections(data: MemoryData, id: string): Sections {
  let sections = data.threads.get(id);
  if (!sections) {
    sections = new Sections();
    data.threads.set(id, sections);
  }
  return sections;
}

/** Items in the memory, thread contexts included. */
export function memoryItemCount(data: MemoryData): number {
  let total = data.main.count();
  for (const sections of data.threads.values()) total += sections.count();
  return total;
}

function splitCsv(value: string): string[] {
  return value
    .split(',')
    .map((part) => stripChars(strip(part), '`'))
    .filter(Boolean);
}

const afterColon = (line: string): string => line.slice(line.indexOf(':') + 1);

const TASK_HEADING = new PyPattern('^#{1,3}\\s*Task\\b');
const HEADING_MARKS = pyRegex('^#{1,3}\\s*');
const PREFERENCE_HEADINGS = new Set([
  '## user preferences',
  '### user preferences',
  '## preference signals',
  '### preference signals',
  'preference signals:',
]);
const KEYWORD_HEADINGS = new Set(['## keywords', '### keywords']);
const KNOWLEDGE_HEADINGS = new Set(['## reusable knowledge', '### reusable knowledge', 'reusable knowledge:']);
const SECTION_END = /^[a-z][a-z0-9 /()'`-]*:$/;

/** One memory text's sections (the engine's `_parse_memory_text`). */
function parseMemoryText(text: string): Sections {
  const result = new Sections();
  let section: 'preferences' | 'keywords' | 'descriptions' | undefined;
  for (const raw of splitLines(text)) {
    const line = normalizeText(raw);
    if (!line) continue;
    const lower = line.toLowerCase();
    if (line.startsWith('# Task Group:')) {
      result.add('task_groups', normalizeText(afterColon(line)));
      section = undefined;
    } else if (TASK_HEADING.test(line)) {
      const title = line.includes(':') ? afterColon(line) : line.replace(HEADING_MARKS, '');
      result.add('task_titles', normalizeText(title));
      section = undefined;
    } else if (line.startsWith('# ') && !lower.startsWith('# raw memories')) {
      result.add('task_groups', normalizeText(line.slice(2)));
      section = undefined;
    } else if (lower.startsWith('task_group:')) {
      result.add('task_groups', normalizeText(afterColon(line)).replaceAll('-', ' '));
      section = undefined;
    } else if (lower.startsWith('task:')) {
      result.add('task_titles', normalizeText(afterColon(line)).replaceAll('-', ' '));
      section = undefined;
    } else if (lower.startsWith('description:')) {
      result.add('descriptions', normalizeText(afterColon(line)));
    } else if (lower.startsWith('keywords:')) {
      result.add('keywords', ...splitCsv(afterColon(line)));
      section = undefined;
    } else if (PREFERENCE_HEADINGS.has(lower)) {
      section = 'preferences';
    } else if (KEYWORD_HEADINGS.has(lower)) {
      section = 'keywords';
    } else if (KNOWLEDGE_HEADINGS.has(lower)) {
      section = 'descriptions';
    } else if (SECTION_END.test(lower)) {
      // Any other `word:` line (`Key steps:`, `References:`) ends the section.
      section = undefined;
    } else if (line.startsWith('- ')) {
      const bullet = normalizeText(line.slice(2));
      if (section === 'keywords') result.add('keywords', ...splitCsv(bullet));
      else if (section) result.add(section, bullet);
    }
  }
  return result;
}

const THREAD_HEADING = pyRegex('^##\\s+Thread\\s+`([^`]+)`');

/** `raw_memories.md` split at each `## Thread \`<id>\`` heading, parsed per thread. */
function parseRawMemoryThreads(text: string): Map<string, Sections> {
  const threads = new Map<string, Sections>();
  let current: string | undefined;
  let lines: string[] = [];
  const flush = (): void => {
    if (!current) return;
    const parsed = parseMemoryText(lines.join('\n'));
    if (parsed.count() === 0) return;
    const existing = threads.get(current) ?? new Sections();
    existing.extend(parsed);
    threads.set(current, existing);
  };
  for (const raw of splitLines(text)) {
    const heading = THREAD_HEADING.exec(strip(raw))?.[1];
    if (heading !== undefined) {
      flush();
      current = normalizeText(heading);
      lines = [];
    } else if (current) {
      lines.push(raw);
    }
  }
  flush();
  return threads;
}

const FALLBACK_BEGIN = '<!-- BEGIN BOURDON FALLBACK MEMORY -->';
const FALLBACK_END = '<!-- END BOURDON FALLBACK MEMORY -->';

/** MEMORY.md without the block Bourdon itself may have written into it. */
function stripFallbackBlock(original: string): string {
  let text = original;
  while (text.includes(FALLBACK_BEGIN)) {
    const start = text.indexOf(FALLBACK_BEGIN);
    const endAt = text.indexOf(FALLBACK_END, start);
    if (endAt === -1) return rstrip(text.slice(0, start));
    const prefix = rstrip(text.slice(0, start));
    const suffix = lstrip(text.slice(endAt + FALLBACK_END.length));
    text = prefix && suffix ? `${prefix}\n\n${suffix}` : prefix || suffix;
  }
  return text;
}

/** Largest memory file read whole; a larger one is read up to this size (and said). */
const MAX_MEMORY_FILE_BYTES = 16 * 1024 * 1024;

/** Everything the memory files say; a file that may not be read (a link leading out) is one warning. */
export function collectMemory(where: CodexLocations, reader: SourceReader): MemoryData {
  const data = emptyMemory();
  const read = (file: string): string | null => reader.readText(file, MAX_MEMORY_FILE_BYTES);
  const home = where.codexHome;
  const memories = home === undefined ? undefined : path.join(home, 'memories');
  if (memories !== undefined && reader.isDir(memories)) {
    const memoryMd = read(path.join(memories, 'MEMORY.md'));
    if (memoryMd !== null) data.main.extend(parseMemoryText(stripFallbackBlock(memoryMd)));
    const rawMemories = read(path.join(memories, 'raw_memories.md'));
    if (rawMemories !== null) {
      data.main.extend(parseMemoryText(rawMemories));
      for (const [id, sections] of parseRawMemoryThreads(rawMemories)) threadSections(data, id).extend(sections);
    }
    const summaries = path.join(memories, 'rollout_summaries');
    for (const name of reader
      .list(summaries, { maxEntries: CODEX_WALK.entries })
      .filter((entry) => entry.endsWith('.md'))) {
      const text = read(path.join(summaries, name));
      if (text !== null) data.main.extend(parseMemoryText(text));
    }
  }
  if (where.codexBrain !== undefined) {
    const brain = where.codexBrain;
    const notes = (name: string): boolean => {
      const lower = name.toLowerCase();
      return lower.endsWith('.md') || lower.endsWith('.txt');
    };
    for (const parts of reader.walk(brain, notes, CODEX_WALK).sort(compareParts)) {
      const text = read(path.join(brain, ...parts));
      if (text !== null) data.main.extend(parseMemoryText(text));
    }
  }
  return data;
}

/** The memory the engine synthesises from session records when the distilled memory is empty. */
export function fallbackMemory(records: readonly SessionRecord[], home: string): MemoryData {
  const data = emptyMemory();
  for (const record of records) {
    const thread = new Sections();
    const name = strip(record.threadName);
    if (name && name !== '(untitled)') {
      thread.add(
        'task_titles',
        looksLikeMemoriesPath(record.cwd) ? 'Codex memory artifacts' : scrub(name, LIMITS.topicName),
      );
    }
    const projectKey = projectKeyFromCwd(record.cwd, home);
    if (projectKey) {
      const label = friendlyLabel(projectKey);
      thread.add('keywords', label);
      thread.add('task_groups', `${label} Codex session history`);
    }
    if (record.concepts.length > 0) {
      thread.add('keywords', ...record.concepts);
      thread.add('descriptions', ...record.concepts.map((concept) => `Recovered concept: ${concept}`));
    }
    if (record.filesTouched.length > 0) {
      thread.add('descriptions', `Structured patch evidence touched: ${record.filesTouched.slice(0, 5).join(', ')}`);
    }
    if (thread.count() === 0) continue;
    data.main.extend(thread);
    if (record.id) threadSections(data, record.id).extend(thread);
  }
  return data;
}
