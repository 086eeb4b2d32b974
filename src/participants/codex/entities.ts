/**
 * From session records and memory to the manifest's sessions and entities: projects (from
 * working directories and from names the memory repeats), thread and memory topics, fallback
 * concepts and preferences, merged by (type, lower-cased name), junk dropped, sorted.
 */
import { PRIVATE_TAGS } from '../kit/manifest-shape.js';
import type { Entity as KitEntity, Session as KitSession } from '../kit/manifest-shape.js';
import type { Since } from '../kit/since.js';
import { conceptAliases, recoveredConcepts } from './concepts.js';
import { isCalendarDate } from '../../core/native/python-dates.js';
import type { MemoryData } from './memory.js';
import { preferenceFields } from './preferences.js';
import {
  ProjectPicker,
  bestDisplayName,
  codexMemoryCwdTest,
  projectCandidates,
  projectKeyFromCwd,
  wordMatcher,
} from './projects.js';
import type { SessionRecord } from './records.js';
import { LIMITS, scrub } from './scrubber.js';
import { codePointLength, compareCodePoints, dedupe, lowerKey, pyRegex, strip } from './text.js';

/** An entity as this participant builds it: the kit's (core's written entity), with the keys it always sets. */
export type Entity = KitEntity & {
  type: string;
  summary?: string;
  aliases: string[];
  tags: string[];
  visibility: 'team';
};

/** A session as this participant builds it: the kit's (core's written session), with the keys it always sets. */
export type Session = KitSession & {
  cwd?: string;
  project_focus: string[];
  key_actions: string[];
  files_touched: string[];
  visibility: 'team';
};

export interface DeriveInput {
  readonly records: readonly SessionRecord[];
  readonly memory: MemoryData;
  readonly home: string;
  readonly codexHome: string | undefined;
  readonly platform: NodeJS.Platform;
  /** `YYYY-MM-DD`: sessions before it are left out. */
  readonly since: Since;
}

/** Entities keyed by (type, lower-cased name); a second one with the same key merges into the first. */
class EntityMap {
  private readonly byKey = new Map<string, Entity>();

  private static key(entity: Entity): string {
    return `${entity.type}\u0000${entity.name.toLowerCase()}`;
  }

  set(entity: Entity): void {
    this.byKey.set(EntityMap.key(entity), entity);
  }

  put(entity: Entity): void {
    const existing = this.byKey.get(EntityMap.key(entity));
    if (!existing) {
      this.byKey.set(EntityMap.key(entity), entity);
      return;
    }
    if (entity.summary && !existing.summary) existing.summary = entity.summary;
    if (
      entity.last_touched &&
      (existing.last_touched === undefined || compareCodePoints(entity.last_touched, existing.last_touched) > 0)
    )
      existing.last_touched = entity.last_touched;
    for (const alias of entity.aliases) if (!existing.aliases.includes(alias)) existing.aliases.push(alias);
    for (const tag of entity.tags) if (!existing.tags.includes(tag)) existing.tags.push(tag);
  }

  values(): Entity[] {
    return [...this.byKey.values()];
  }
}

const NOISE_NAME = pyRegex(
  '^(?:project\\s*\\d+|new\\s+project(?:\\s*\\d+)?|project\\s+name|untitled|brief\\s+description\\s+of\\s+the\\s+project\\.?)$',
  'i',
);
const NOISE_WORDS = new Set(['memories', 'memory', 'notes', 'note', 'temp', 'tmp', 'test', 'tests', 'todo']);
const SHORT_NAMES_KEPT = new Set(['nas', 'ios', 'css', 'git', 'ci']);
const OBSERVED_ONLY = pyRegex('^observed across \\d+ codex session\\(s\\)\\.?$', 'i');
const PLAIN_TAGS = new Set(['codex-project', 'codex-thread', 'codex-memory']);

/** Placeholder names and placeholder-only project summaries are no recall anchor. */
function isJunk(entity: Entity): boolean {
  const name = strip(entity.name);
  if (!name) return true;
  const lower = name.toLowerCase();
  if (NOISE_NAME.test(name) || NOISE_WORDS.has(lower)) return true;
  if (codePointLength(name) < 4 && !SHORT_NAMES_KEPT.has(lower)) return true;
  const summary = strip(entity.summary ?? '');
  if (summary && OBSERVED_ONLY.test(summary)) {
    const descriptiveTags = entity.tags.filter((tag) => tag && !PLAIN_TAGS.has(tag));
    if (entity.aliases.length === 0 && descriptiveTags.length === 0) return true;
  }
  return false;
}

const PRIVATE_TAG_SET = new Set(PRIVATE_TAGS);

function maxDate(dates: readonly string[]): string | undefined {
  let max: string | undefined;
  for (const date of dates) if (max === undefined || compareCodePoints(date, max) > 0) max = date;
  return max;
}

/** The key action of a session: its thread name, or what Codex did to its own memory files. */
function sessionAction(record: SessionRecord, inMemories: boolean): string {
  if (!inMemories) return scrub(record.threadName || '(untitled)', LIMITS.keyAction);
  const files = record.filesTouched;
  const shown = files
    .slice(0, 5)
    .filter((file) => strip(file))
    .map((file) => scrub(file, LIMITS.memoryFile));
  if (shown.length === 0) return 'Updated Codex memory artifacts';
  const suffix = files.length > shown.length ? ', ...' : '';
  return scrub(`Updated Codex memory artifacts: ${shown.join(', ')}${suffix}`, LIMITS.keyAction);
}

function topicName(record: SessionRecord, inMemories: boolean): string {
  if (inMemories) return 'Codex memory artifacts';
  return scrub(record.threadName || '(untitled)', LIMITS.topicName);
}

/** Sessions (newest first, `--since` applied) and entities (sorted, junk dropped, private dropped). */
export function derive(input: DeriveInput): { sessions: Session[]; entities: Entity[] } {
  const { records, memory, home } = input;
  const lists = memory.main.lists;
  const phrases = [...lists.keywords, ...lists.task_groups, ...lists.task_titles, ...records.map((r) => r.threadName)];
  const labels = new Map<string, string>();
  const entities = new EntityMap();
  const preferredKeys = projectCandidates(memory.main, home);
  const summaryTexts = [...lists.descriptions, ...lists.task_groups];

  const counts = new Map<string, number>();
  const newest = new Map<string, string>();
  for (const record of records) {
    const key = projectKeyFromCwd(record.cwd, home);
    if (key === undefined) continue;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    newest.set(key, maxDate([record.date, ...(newest.has(key) ? [newest.get(key) as string] : [])]) as string);
  }
  for (const [key, count] of counts) {
    const label = bestDisplayName(key, phrases);
    labels.set(key, label);
    const described = summaryTexts.find((text) => text.toLowerCase().includes(key));
    entities.set({
      name: label,
      type: 'project',
      aliases: [],
      summary: described ?? `Observed across ${count} Codex session(s).`,
      last_touched: newest.get(key),
      tags: ['codex-project'],
      visibility: 'team',
    });
  }
  for (const key of preferredKeys) {
    const label = bestDisplayName(key, phrases);
    labels.set(key, label);
    const mentions = wordMatcher(key);
    const described = summaryTexts.find((text) => text.toLowerCase().includes(key) && mentions.test(text));
    entities.put({
      name: label,
      type: 'project',
      aliases: [],
      summary: described ?? `Named repeatedly across Codex memory as ${label}.`,
      tags: ['codex-project', 'codex-memory'],
      visibility: 'team',
    });
  }
  const preferredProjects = entities
    .values()
    .filter((entity) => entity.type === 'project')
    .map((entity) => entity.name);
  const picker = new ProjectPicker(labels, preferredProjects, home);
  const isMemoryCwd = codexMemoryCwdTest(input.codexHome, input.platform);

  const sessions: Session[] = [];
  for (const record of records) {
    if (!isCalendarDate(record.date)) continue;
    if (!input.since.keepDay(record.date)) continue;
    const project = picker.pick(record.cwd, record.threadName, memory.threads.get(record.id));
    const inMemories = isMemoryCwd(record.cwd);
    const session: Session = {
      date: record.date,
      project_focus: project ? [project] : [],
      key_actions: [sessionAction(record, inMemories)],
      files_touched: [...record.filesTouched],
      visibility: 'team',
    };
    if (record.cwd !== undefined) session.cwd = record.cwd;
    sessions.push(session);
    const name = topicName(record, inMemories);
    entities.put({
      name,
      type: 'topic',
      aliases: [],
      summary: `Codex thread: ${name}`,
      last_touched: record.date,
      tags: ['codex-thread'],
      visibility: 'team',
    });
  }

  for (const text of [...lists.task_groups, ...lists.task_titles]) {
    const name = scrub(text, LIMITS.topicName);
    entities.put({
      name,
      type: 'topic',
      aliases: [],
      summary: `Codex memory topic: ${name}`,
      tags: ['codex-memory'],
      visibility: 'team',
    });
  }

  const conceptDates = new Map<string, string[]>();
  for (const record of records) {
    for (const concept of record.concepts) {
      const key = concept.toLowerCase();
      const dates = conceptDates.get(key);
      if (dates) dates.push(record.date);
      else conceptDates.set(key, [record.date]);
    }
  }
  const recordConcepts = records.flatMap((record) => record.concepts.filter(Boolean));
  for (const concept of dedupe([...recoveredConcepts(lists.descriptions), ...recordConcepts], lowerKey)) {
    entities.put({
      name: concept,
      type: 'topic',
      aliases: conceptAliases(concept),
      summary: `Codex fallback concept recovered from rollout user prompts: ${concept}.`,
      last_touched: maxDate(conceptDates.get(concept.toLowerCase()) ?? []),
      tags: ['codex-memory', 'codex-fallback-concept'],
      visibility: 'team',
    });
  }

  for (const text of lists.preferences) {
    const { name, summary, tags } = preferenceFields(text);
    entities.put({ name, type: 'preference', aliases: [], summary, tags, visibility: 'team' });
  }

  const kept = entities
    .values()
    .filter((entity) => !isJunk(entity))
    .sort((a, b) => compareCodePoints(a.type, b.type) || compareCodePoints(a.name.toLowerCase(), b.name.toLowerCase()))
    // The federation filter: a private tag drops an entity (codex tags never carry one today).
    .filter((entity) => !entity.tags.some((tag) => PRIVATE_TAG_SET.has(tag)));
  return { sessions, entities: kept };
}
