/**
 * The cascade participant (Windsurf's agent): the convention file `~/.cascade-bourdon/memory.md`
 * and nothing else, as conformance/participants/README.md ("cascade") says. Windsurf's own store
 * (`~/.codeium/windsurf/`) is never read. The front matter holds `entities` and `sessions`; most
 * values pass through with their YAML type, summaries are scrubbed, session texts are not (the
 * runner's last-line redaction still catches secret values in them).
 */
import path from 'node:path';
import { SourceReader } from '../kit/source-reader.js';
import { sinceRules } from '../kit/since.js';
import { parseYaml11LikePyYaml } from '../../core/store/yaml.js';
import { isMapping, truthyText } from '../kit/markdown.js';
import { assembleManifest, type Entity, type PassedRow, type Session } from '../kit/manifest-shape.js';
import type { ExportEnvironment, Participant, ParticipantExport } from '../kit/participant.js';
import { REDACTED_TEXT, looksLikeCredential, pyStrip, scrubNativeText } from '../kit/scrub.js';
import {
  entityName,
  memoryStatus,
  plainValue,
  pyItems,
  readConventionMemory,
  sessionDate,
  type FieldAt,
} from '../kit/convention-memory.js';

const AGENT_ID = 'cascade';
const ROLE_NARRATIVE =
  "Windsurf's agentic coding assistant: plans multi-step work, edits files, runs the terminal and " +
  'searches the code. Bourdon reads the memory file it is asked to keep, ~/.cascade-bourdon/memory.md.';
const CAPABILITIES = ['chat', 'code-editing', 'terminal', 'planning', 'search'];
/** Cascade's own policy: an entity with one of these tags is dropped; the policy is never written. */
const DROPPED_TAGS = new Set(['personal', 'credential', 'financial', 'secret', 'private']);
/** Cascade's two patterns beyond the scrubber's: the word `secret`, and `sk_test_`-like keys anywhere. */
const CASCADE_CREDENTIAL = [/(?<![\p{L}\p{N}_])secret(?![\p{L}\p{N}_])/iu, /sk[_-]test[_-]/i];

function memoryPath(environment: ExportEnvironment): string {
  return path.join(environment.home, '.cascade-bourdon', 'memory.md');
}

/**
 * Cascade's front matter: the text starts with `---`; the block ends at the next `---` anywhere
 * after those three characters (even inside a line), trimmed. An empty block, YAML that does not
 * load or does not load to a mapping: none.
 */
function cascadeFrontMatter(text: string): Record<string, unknown> | null {
  if (!text.startsWith('---')) return null;
  const end = text.indexOf('---', 3);
  if (end < 0) return null;
  const block = pyStrip(text.slice(3, end));
  if (!block) return null;
  const loaded = parseYaml11LikePyYaml(block);
  return loaded && isMapping(loaded.value) ? loaded.value : null;
}

/** A summary: a string is redacted whole when it names a credential, else scrubbed at 180; any other value passes. */
function cascadeSummary(value: unknown): unknown {
  if (typeof value !== 'string') return plainValue(value);
  if (CASCADE_CREDENTIAL.some((pattern) => pattern.test(value)) || looksLikeCredential(value)) return REDACTED_TEXT;
  return scrubNativeText(value);
}

/** Whether a tag list names one of cascade's dropped tags; undefined when an item cannot be compared (a list or mapping). */
function carriesDroppedTag(tags: readonly unknown[]): boolean | undefined {
  if (tags.some((tag) => tag !== null && typeof tag === 'object')) return undefined;
  return tags.some((tag) => typeof tag === 'string' && DROPPED_TAGS.has(tag));
}

/**
 * Whether an entity says it is private itself (`visibility: private`, any case, trimmed): it is
 * left out as a private-tagged one is. The engine's exporter writes it without its label, so a
 * row Windsurf keeps private would be read as public (the participants README, "cascade").
 */
function labelledPrivate(item: Record<string, unknown>): boolean {
  return typeof item.visibility === 'string' && item.visibility.trim().toLowerCase() === 'private';
}

function entityOf(item: unknown, index: number, reader: SourceReader, file: string): PassedRow<Entity> | undefined {
  const name = entityName(item);
  if (name === undefined || !isMapping(item) || labelledPrivate(item)) return undefined;
  const at = (field: string): FieldAt => ({ reader, file, field: `entities[${index}].${field}` });
  const tags = pyItems(item.tags, at('tags'));
  const dropped = carriesDroppedTag(tags);
  if (dropped === undefined) {
    // The engine cannot check such a tag against its policy; an entity we cannot clear is not exported.
    reader.warn(`${file}: entity ${JSON.stringify(name)} skipped: a tag is a list or mapping`);
    return undefined;
  }
  if (dropped) return undefined;
  return {
    name,
    type: plainValue(item.type),
    aliases: plainValue(pyItems(item.aliases, at('aliases'))),
    summary: 'summary' in item ? cascadeSummary(item.summary) : undefined,
    last_touched: truthyText(item.last_touched),
    tags: plainValue(tags),
    valid_from: truthyText(item.valid_from),
    valid_to: truthyText(item.valid_to),
  };
}

function sessionOf(item: unknown, index: number, reader: SourceReader, file: string): PassedRow<Session> | undefined {
  const date = sessionDate(item);
  if (date === undefined || !isMapping(item)) return undefined;
  const list = (field: string) =>
    plainValue(pyItems(item[field], { reader, file, field: `sessions[${index}].${field}` }));
  return {
    date,
    cwd: plainValue(item.cwd),
    project_focus: list('project_focus'),
    key_actions: list('key_actions'),
    files_touched: list('files_touched'),
  };
}

async function exportCascade(environment: ExportEnvironment): Promise<ParticipantExport> {
  const reader = new SourceReader([environment.home]);
  const file = memoryPath(environment);
  const meta = readConventionMemory(reader, file, cascadeFrontMatter);
  const since = sinceRules(environment);
  const entities: PassedRow<Entity>[] = [];
  const sessions: PassedRow<Session>[] = [];
  if (meta) {
    pyItems(meta.entities, { reader, file, field: 'entities' }).forEach((item, index) => {
      const entity = entityOf(item, index, reader, file);
      if (entity) entities.push(entity);
    });
    pyItems(meta.sessions, { reader, file, field: 'sessions' }).forEach((item, index) => {
      const session = sessionOf(item, index, reader, file);
      if (session && since.keepDayAtInstant(String(session.date))) sessions.push(session);
    });
  }
  const manifest = assembleManifest({
    agent: { id: AGENT_ID, type: 'code-assistant', role_narrative: ROLE_NARRATIVE },
    now: environment.now,
    capabilities: CAPABILITIES,
    sessions,
    entities,
  });
  return { manifest, sources: [memoryStatus(file, reader)], warnings: reader.warnings };
}

export const cascadeParticipant: Participant = {
  agentId: AGENT_ID,
  topic: 'cascade',
  watch: { follow: 'sources' },
  help: {
    summary: "Publish Windsurf Cascade's memory file as the cascade manifest.",
    reads:
      "Reads the memory file Cascade is asked to keep, ~/.cascade-bourdon/memory.md (its YAML front matter: entities and sessions); no variable overrides it, and Windsurf's own ~/.codeium/windsurf/ is never read. A missing or unreadable file gives an empty manifest. --since takes a date or an ISO instant.",
  },
  async sources(environment) {
    return [memoryStatus(memoryPath(environment), new SourceReader([environment.home]))];
  },
  export: exportCascade,
};
