/**
 * Cursor's `ItemTable` rows as sessions, and the entities inferred from them: one project per
 * workspace folder and one topic per word that recurs across sessions. Pure functions over
 * already-decoded JSON values; reading the databases is the participant's job.
 */
import { pySplit, pyStrip, scrubNativeText } from '../kit/scrub.js';
import { type Entity } from '../kit/manifest-shape.js';
import { compareCodePoints } from '../../core/native/python-values.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { isoCalendarDate } from '../../core/native/python-dates.js';
import { posixName, utcDateOfEpoch } from '../kit/values.js';

export interface CursorSession {
  readonly date: string;
  /** '' when the record names no folder. */
  readonly cwd: string;
  readonly action: string;
  readonly files: readonly string[];
}

const ACTION_LIMIT = 256;
/** Cursor's epoch numbers above this are milliseconds. */
const EPOCH_MILLISECONDS_ABOVE = 10_000_000_000;
const TOPIC_MIN_SESSIONS = 3;
const CWD_KEYS = ['workspacePath', 'workspace', 'cwd', 'folder', 'rootPath'];
const NESTED_CWD_KEYS = ['path', 'folder', 'cwd'];
const ACTION_KEYS = ['title', 'text', 'prompt', 'summary', 'name'];
const DATE_KEYS = ['createdAt', 'timestamp', 'updatedAt', 'lastUpdatedAt', 'time'];
const FILE_KEYS = ['files', 'filePaths', 'filesTouched', 'references'];
const FILE_ITEM_KEYS = ['path', 'file', 'uri', 'relativePath'];
/** Nesting of `messages` followed for files; deeper ones are ignored (hostile input, not Cursor's). */
const MAX_MESSAGE_DEPTH = 32;
/** Characters trimmed from a word's ends before it is counted as a topic. */
const WORD_TRIM = /^[.,;:!?"'`()[\]{}#\-/]+|[.,;:!?"'`()[\]{}#\-/]+$/g;
const LETTERS_ONLY = /^\p{L}+$/u;
const TOPIC_STOP_WORDS = new Set(
  (
    'the and for with this that from have will are was been not but all can has its add use set get new fix ' +
    'run now also into make just like need want work code file test data type should would could'
  ).split(' '),
);

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first of `keys` whose value is a non-blank string, stripped. */
function firstString(value: JsonObject, keys: readonly string[]): string {
  for (const key of keys) {
    const candidate = value[key];
    if (typeof candidate === 'string') {
      const stripped = pyStrip(candidate);
      if (stripped) return stripped;
    }
  }
  return '';
}

/** A row looks like a chat/composer record by its key, or by the shape of its value. */
function looksLikeSession(key: string, value: unknown): boolean {
  const lowered = key.toLowerCase();
  if (lowered.includes('composer') || lowered.includes('aichat') || lowered.includes('chat')) return true;
  if (!isObject(value)) return false;
  const joined = Object.keys(value).join(' ').toLowerCase();
  return joined.includes('message') && (joined.includes('workspace') || joined.includes('file'));
}

function firstMessageText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (const message of messages) {
    if (!isObject(message)) continue;
    const content = truthy(message.content) ? message.content : message.text;
    if (typeof content === 'string' && pyStrip(content)) return pyStrip(content);
  }
  return '';
}

function parseDate(value: unknown): string | undefined {
  if (typeof value === 'string') return isoCalendarDate(value);
  // Python's bool is an int: `true` is the epoch second 1.
  if (typeof value === 'boolean') return utcDateOfEpoch(value ? 1 : 0, EPOCH_MILLISECONDS_ABOVE);
  if (typeof value === 'number') return utcDateOfEpoch(value, EPOCH_MILLISECONDS_ABOVE);
  return undefined;
}

function filesOf(value: JsonObject, depth: number, into: string[]): void {
  for (const key of FILE_KEYS) {
    const list = value[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item === 'string') {
        const stripped = pyStrip(item);
        if (stripped) into.push(stripped);
      } else if (isObject(item)) {
        const path = firstString(item, FILE_ITEM_KEYS);
        if (path) into.push(path);
      }
    }
  }
  if (depth >= MAX_MESSAGE_DEPTH || !Array.isArray(value.messages)) return;
  for (const message of value.messages) if (isObject(message)) filesOf(message, depth + 1, into);
}

/** The session a row holds, or undefined when it holds none. `today` dates an undated record. */
export function rowToSession(key: unknown, value: unknown, today: string): CursorSession | undefined {
  if (!looksLikeSession(pyStr(key), value) || !isObject(value)) return undefined;
  let cwd = firstString(value, CWD_KEYS);
  if (!cwd && isObject(value.workspace)) cwd = firstString(value.workspace, NESTED_CWD_KEYS);
  const action = firstString(value, ACTION_KEYS) || firstMessageText(value.messages);
  if (!action) return undefined;
  let date: string | undefined;
  for (const dateKey of DATE_KEYS) {
    date = parseDate(value[dateKey]);
    if (date) break;
  }
  const files: string[] = [];
  filesOf(value, 0, files);
  return { date: date ?? today, cwd, action: scrubNativeText(action, ACTION_LIMIT), files: [...new Set(files)] };
}

/** A workspace folder's last path component (`pathlib`'s `.name`), or '' when it has none. */
function projectName(cwd: string): string {
  const name = pyStrip(posixName(cwd));
  return name === '.' || name === '/' ? '' : name;
}

/** Newest first, keeping the read order among equal dates. */
export function sortSessions(sessions: readonly CursorSession[]): CursorSession[] {
  return [...sessions].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
}

/** Project entities (first-seen order), then the topics that recur across sessions, in read order. */
export function inferEntities(sessions: readonly CursorSession[]): Entity[] {
  interface Project {
    aliases: Set<string>;
    lastCwd: string;
    newest: string;
  }
  const projects = new Map<string, Project>();
  for (const session of sessions) {
    const name = projectName(session.cwd);
    if (!name) continue;
    const project = projects.get(name);
    if (!project) projects.set(name, { aliases: new Set([session.cwd]), lastCwd: session.cwd, newest: session.date });
    else {
      project.aliases.add(session.cwd);
      project.lastCwd = session.cwd;
      if (session.date > project.newest) project.newest = session.date;
    }
  }
  const entities: Entity[] = [...projects].map(([name, project]) => ({
    name,
    type: 'project',
    aliases: [...project.aliases].sort(compareCodePoints),
    summary: `Cursor workspace inferred from ${project.lastCwd}.`,
    last_touched: project.newest,
    tags: ['cursor', 'workspace', 'sqlite'],
  }));

  const topics = new Map<string, { sessions: number; newest: string }>();
  for (const session of sessions) {
    const words = new Set<string>();
    for (const token of pySplit(session.action.toLowerCase())) {
      const word = token.replace(WORD_TRIM, '');
      if ([...word].length >= 4 && !TOPIC_STOP_WORDS.has(word) && LETTERS_ONLY.test(word)) words.add(word);
    }
    for (const word of words) {
      const topic = topics.get(word) ?? { sessions: 0, newest: '' };
      topic.sessions += 1;
      if (session.date > topic.newest) topic.newest = session.date;
      topics.set(word, topic);
    }
  }
  for (const [word, topic] of topics) {
    if (topic.sessions < TOPIC_MIN_SESSIONS || projects.has(word)) continue;
    entities.push({
      name: word,
      type: 'topic',
      summary: `Recurring topic across ${topic.sessions} Cursor sessions.`,
      last_touched: topic.newest || undefined,
      tags: ['cursor', 'topic', 'inferred'],
    });
  }
  return entities;
}
