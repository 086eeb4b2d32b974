/**
 * The copilot participant: the convention file `memory.md` GitHub Copilot is asked to keep
 * (`$COPILOT_BOURDON_HOME/memory.md`, else `~/.copilot-bourdon/memory.md`), as
 * conformance/participants/README.md ("copilot") says. Copilot's own `~/.copilot/` is not read
 * (copilot-cli reads its session store). Values are converted to text; summaries are scrubbed,
 * session texts are not (the runner's last-line redaction still catches secret values in them).
 */
import path from 'node:path';
import { SourceReader } from '../kit/source-reader.js';
import { sinceRules } from '../kit/since.js';
import { pyStr, truthy } from '../../core/python-str.js';
import { parseNote, isMapping, truthyText } from '../kit/markdown.js';
import {
  assembleManifest,
  federationFilter,
  PRIVATE_TAGS,
  type Entity,
  type Policy,
  type Session,
} from '../kit/manifest-shape.js';
import type { ExportEnvironment, Participant, ParticipantExport } from '../kit/participant.js';
import { pyStrip, scrubNativeText } from '../kit/scrub.js';
import {
  entityName,
  memoryFile,
  memoryStatus,
  pyItems,
  readConventionMemory,
  sessionDate,
  type FieldAt,
} from '../kit/convention-memory.js';

const AGENT_ID = 'copilot';
const ROLE_NARRATIVE =
  'GitHub Copilot in the editor: inline completion, chat and pull-request review. Bourdon reads ' +
  'the convention memory file it is asked to keep, so what it learns outlasts a session.';
const CAPABILITIES = ['inline-completion', 'chat', 'pr-review', 'convention-memory'];
const POLICY: Policy = {
  default: 'team',
  private_tags: PRIVATE_TAGS,
  team_tags: ['copilot-memory', 'workspace', 'copilot'],
};

function memoryPath({ env, home, cwd }: ExportEnvironment): string {
  return memoryFile(cwd, env.COPILOT_BOURDON_HOME || path.join(home, '.copilot-bourdon'));
}

function reader(environment: ExportEnvironment): SourceReader {
  // A folder the user named may live anywhere: it is theirs to point at.
  return new SourceReader([environment.home, path.dirname(memoryPath(environment))]);
}

/** Front matter as the engine's `_parse_frontmatter` finds it (markdown.ts), without its size cap: the whole memory is in it. */
function frontMatter(text: string): Record<string, unknown> | null {
  return parseNote(text, Number.POSITIVE_INFINITY).meta;
}

/** The items of a list field that are non-blank strings, untrimmed. */
function stringItems(value: unknown, at: FieldAt): string[] {
  return pyItems(value, at).filter((item): item is string => typeof item === 'string' && pyStrip(item) !== '');
}

function entityOf(item: unknown, index: number, at: (field: string) => FieldAt): Entity | undefined {
  const name = entityName(item);
  if (name === undefined || !isMapping(item)) return undefined;
  return {
    name,
    type: truthyText(item.type),
    aliases: stringItems(item.aliases, at(`entities[${index}].aliases`)),
    summary: truthy(item.summary) ? scrubNativeText(pyStr(item.summary)) : undefined,
    last_touched: truthyText(item.last_touched),
    tags: stringItems(item.tags, at(`entities[${index}].tags`)),
    valid_from: truthyText(item.valid_from),
    valid_to: truthyText(item.valid_to),
  };
}

function sessionOf(item: unknown, index: number, at: (field: string) => FieldAt): Session | undefined {
  const date = sessionDate(item);
  if (date === undefined || !isMapping(item)) return undefined;
  const list = (field: string) => stringItems(item[field], at(`sessions[${index}].${field}`));
  return {
    date,
    cwd: truthyText(item.cwd),
    project_focus: list('project_focus'),
    key_actions: list('key_actions'),
    files_touched: list('files_touched'),
  };
}

async function exportCopilot(environment: ExportEnvironment): Promise<ParticipantExport> {
  const files = reader(environment);
  const file = memoryPath(environment);
  const meta = readConventionMemory(files, file, frontMatter);
  const at = (field: string): FieldAt => ({ reader: files, file, field });
  const entities: Entity[] = [];
  const sessions: Session[] = [];
  if (meta) {
    pyItems(meta.entities, at('entities')).forEach((item, index) => {
      const entity = entityOf(item, index, at);
      if (entity) entities.push(entity);
    });
    const since = sinceRules(environment);
    pyItems(meta.sessions, at('sessions')).forEach((item, index) => {
      const session = sessionOf(item, index, at);
      // The 10-character date compared as text: `2026-4-2` and `April 20` are kept.
      if (session && since.keepDay(String(session.date))) sessions.push(session);
    });
  }
  const manifest = assembleManifest({
    agent: {
      id: AGENT_ID,
      type: 'code-assistant',
      instance: environment.hostname,
      spec_version_compat: '>=0.1',
      role_narrative: ROLE_NARRATIVE,
    },
    now: environment.now,
    capabilities: CAPABILITIES,
    sessions,
    entities: federationFilter(entities, PRIVATE_TAGS),
    policy: POLICY,
  });
  return { manifest, sources: [memoryStatus(file, files)], warnings: files.warnings };
}

export const copilotParticipant: Participant = {
  agentId: AGENT_ID,
  watch: { follow: 'sources' },
  topic: 'copilot',
  help: {
    summary: "Publish Copilot's convention memory file as the copilot manifest.",
    reads:
      "Reads the memory file GitHub Copilot is asked to keep, $COPILOT_BOURDON_HOME/memory.md or ~/.copilot-bourdon/memory.md (its YAML front matter: entities and sessions); Copilot's own ~/.copilot/ is not read (`bourdon copilot-cli export` reads its session store). A missing or unreadable file gives an empty manifest.",
  },
  async sources(environment) {
    return [memoryStatus(memoryPath(environment), reader(environment))];
  },
  export: exportCopilot,
};
