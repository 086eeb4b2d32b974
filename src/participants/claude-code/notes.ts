/**
 * Claude Code's notes as entities and sessions: the auto-memory folders
 * (`~/.claude/projects/<project>/memory/*.md`) and the brain folder (`PROJECTS/<dir>/OVERVIEW.md`
 * and `LOG/<date>….md`), read as conformance/participants/README.md ("claude_code") says.
 */
import path from 'node:path';
import type { SourceReader } from '../kit/source-reader.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { cut, cutTitle, firstH1, firstParagraph, parseNote, tagList } from '../kit/markdown.js';
import type { Entity, Session } from '../kit/manifest-shape.js';
import { isPersonType } from '../kit/rows.js';
import type { Since } from '../kit/since.js';

const SUMMARY_CHARS = 500;
const KEY_ACTION_CHARS = 250;
/** Most sessions taken from LOG/ (newest first). */
const MAX_LOG_SESSIONS = 100;
/** How far after a status heading its keywords are looked for. */
const STATUS_WINDOW = 400;
const STATUS_HEADING = /^##[ \t]+(?:Current[ \t]+)?Status/im;
const STATUS_KEYWORDS = ['archived', 'canceled', 'cancelled', 'active', 'shipped', 'blocked'] as const;
const LOG_NAME = /^(\d{4}-\d{2}-\d{2})(?:-.*)?\.md$/s;

/** The value of a frontmatter key as text; undefined when absent or empty. */
function metaText(meta: Record<string, unknown> | null, key: string): string | undefined {
  if (!meta || !(key in meta)) return undefined;
  const value = meta[key];
  return truthy(value) ? pyStr(value) : undefined;
}

/** One auto-memory note as an entity (name, type, summary, tags; private for person types). */
function memoryEntity(text: string, stem: string): Entity {
  const { meta, body } = parseNote(text);
  const h1 = firstH1(body);
  const name = metaText(meta, 'name') ?? (h1 !== null && cutTitle(h1) ? cutTitle(h1) : stem);
  const entity: Entity = { name };
  const type = metaText(meta, 'type');
  if (type) entity.type = type;
  const summary = cut(metaText(meta, 'description') ?? firstParagraph(body), SUMMARY_CHARS);
  if (summary) entity.summary = summary;
  const tags = tagList(meta?.tags);
  if (tags.length) entity.tags = tags;
  if (type && isPersonType(type)) entity.visibility = 'private';
  return entity;
}

/**
 * Every note of one auto-memory folder (all `*.md` but MEMORY.md, by file name). The stem is
 * Python's `Path.stem`, which keeps a name that is only the suffix whole (`.md`).
 */
export function readMemoryFolder(reader: SourceReader, dir: string): Entity[] {
  const entities: Entity[] = [];
  for (const name of reader.list(dir)) {
    if (!name.endsWith('.md') || name === 'MEMORY.md') continue;
    const file = path.join(dir, name);
    if (!reader.isFile(file)) continue;
    const text = reader.readText(file);
    if (text === null) continue;
    entities.push(memoryEntity(text, name === '.md' ? name : name.slice(0, -'.md'.length)));
  }
  return entities;
}

/** The status keywords in the 400 characters from the first status heading, in keyword order. */
function statusTags(body: string): string[] {
  const match = STATUS_HEADING.exec(body);
  if (!match) return [];
  const window = body.slice(match.index, match.index + STATUS_WINDOW).toLowerCase();
  const tags: string[] = [];
  for (const keyword of STATUS_KEYWORDS) {
    if (!window.includes(keyword)) continue;
    const tag = keyword === 'cancelled' ? 'canceled' : keyword;
    if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** One brain project (`PROJECTS/<dir>/OVERVIEW.md`) as a `project` entity. */
function projectEntity(text: string, dirName: string): Entity {
  const { body } = parseNote(text);
  const h1 = firstH1(body);
  const entity: Entity = { name: h1 !== null && cutTitle(h1) ? cutTitle(h1) : dirName, type: 'project' };
  const summary = cut(firstParagraph(body), SUMMARY_CHARS);
  if (summary) entity.summary = summary;
  const tags = statusTags(body);
  if (tags.length) entity.tags = tags;
  return entity;
}

export function readBrainProjects(reader: SourceReader, brain: string): Entity[] {
  const projects = path.join(brain, 'PROJECTS');
  const entities: Entity[] = [];
  for (const dirName of reader.list(projects)) {
    const overview = path.join(projects, dirName, 'OVERVIEW.md');
    if (!reader.isFile(overview)) continue;
    const text = reader.readText(overview);
    if (text !== null) entities.push(projectEntity(text, dirName));
  }
  return entities;
}

/** The brain's dated logs as sessions: newest first, at most 100, those `--since` keeps (`keepDay`). */
export function readBrainLog(reader: SourceReader, brain: string, since: Since): Session[] {
  const log = path.join(brain, 'LOG');
  const dated: { date: string; name: string }[] = [];
  // In the file system's listing order, as the engine's glob() finds them: its sort by date is
  // stable, so logs of the same day keep that order (docs/participants.md).
  for (const name of reader.list(log, { order: 'listing' })) {
    const date = LOG_NAME.exec(name)?.[1];
    if (date !== undefined) dated.push({ date, name });
  }
  // Newest date first (a stable sort: ties keep listing order).
  dated.sort((a, b) => (a.date === b.date ? 0 : a.date < b.date ? 1 : -1));
  const sessions: Session[] = [];
  for (const { date, name } of dated) {
    if (sessions.length >= MAX_LOG_SESSIONS) break;
    if (!since.keepDay(date)) continue;
    const file = path.join(log, name);
    if (!reader.isFile(file)) continue;
    const text = reader.readText(file) ?? '';
    const action = cut(firstParagraph(parseNote(text).body), KEY_ACTION_CHARS);
    const session: Session = { date };
    if (action) session.key_actions = [action];
    session.files_touched = [`LOG/${name}`];
    sessions.push(session);
  }
  return sessions;
}
