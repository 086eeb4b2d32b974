/**
 * The claude-code participant: Claude Code's auto-memory, the knowledge graph at
 * `~/claude-memory/memory.jsonl` and the brain folder, published as agent `claude-code`
 * (conformance/participants/README.md, "claude_code"). One deliberate difference from the
 * engine: every project memory folder that has a MEMORY.md is read, not only the first
 * (docs/conformance.md).
 */
import path from 'node:path';
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { modifiedAt, SourceReader } from '../kit/source-reader.js';
import { assembleManifest, PRIVATE_TAGS } from '../kit/manifest-shape.js';
import { readGraph } from '../kit/knowledge-graph.js';
import { mergeEntities } from '../kit/rows.js';
import { sinceRules } from '../kit/since.js';
import { readBrainLog, readBrainProjects, readMemoryFolder } from './notes.js';

const CLAUDE_CODE_ID = 'claude-code';

const ROLE_NARRATIVE =
  "Anthropic's agentic coding assistant in the terminal. Publishes what it keeps between sessions: " +
  'its per-project auto-memory notes, its knowledge graph, and the brain folder of project overviews and session logs.';

const TEAM_TAGS = ['internal-roadmap'];

interface Located {
  brain: string | undefined;
  memoryDirs: string[];
  graph: string | undefined;
  statuses: SourceStatus[];
}

function status(name: string, target: string, found: boolean): SourceStatus {
  return found ? { name, path: target, found, modified: modifiedAt(target) } : { name, path: target, found };
}

/** The brain folder: $CLAUDE_BRAIN if it is a folder, else ~/claude-brain/, else ./claude-brain/. */
function brainCandidates(environment: ExportEnvironment): [string, ...string[]] {
  const usual: [string, string] = [
    path.join(environment.home, 'claude-brain'),
    path.join(environment.cwd, 'claude-brain'),
  ];
  const named = environment.env.CLAUDE_BRAIN;
  return named ? [path.resolve(environment.cwd, named), ...usual] : usual;
}

function locate(environment: ExportEnvironment, reader: SourceReader): Located {
  const named = environment.env.CLAUDE_BRAIN;
  // A brain folder the user named may live anywhere: it is theirs to point at.
  if (named) reader.allow(path.resolve(environment.cwd, named));
  // So may the working directory's claude-brain/, the engine's last fallback.
  reader.allow(path.join(environment.cwd, 'claude-brain'));
  const candidates = brainCandidates(environment);
  const brain = candidates.find((candidate) => reader.isDir(candidate));
  const statuses: SourceStatus[] = [status('claude_brain', brain ?? candidates[0], brain !== undefined)];

  const projects = path.join(environment.home, '.claude', 'projects');
  const memoryDirs = reader
    .list(projects)
    .map((project) => path.join(projects, project, 'memory'))
    .filter((dir) => reader.isFile(path.join(dir, 'MEMORY.md')));
  if (memoryDirs.length === 0) statuses.push(status('auto_memory', projects, false));
  for (const dir of memoryDirs) statuses.push(status('auto_memory', dir, true));

  const graphFile = path.join(environment.home, 'claude-memory', 'memory.jsonl');
  const graph = reader.isFile(graphFile) ? graphFile : undefined;
  statuses.push(status('knowledge_graph', graphFile, graph !== undefined));
  return { brain, memoryDirs, graph, statuses };
}

export const claudeCodeParticipant: Participant = {
  agentId: CLAUDE_CODE_ID,
  // The Markdown it reads and the knowledge graph, not the session transcripts beside them in ~/.claude/projects.
  watch: { follow: 'sources', files: /(?:\.md|memory\.jsonl)$/ },
  topic: 'claude-code',
  help: {
    summary: "Publish Claude Code's memory as the claude-code manifest.",
    reads:
      "Reads Claude Code's auto-memory (every ~/.claude/projects/*/memory/ folder with a MEMORY.md), the knowledge graph ~/claude-memory/memory.jsonl and the brain folder ($CLAUDE_BRAIN, ~/claude-brain or ./claude-brain: PROJECTS/*/OVERVIEW.md and LOG/<date>*.md). With none of them, nothing is written (exit 0).",
  },

  async sources(environment) {
    return locate(environment, new SourceReader([environment.home], { workingFolder: environment.cwd })).statuses;
  },

  async export(environment): Promise<ParticipantExport> {
    const reader = new SourceReader([environment.home], { workingFolder: environment.cwd });
    const found = locate(environment, reader);
    const capabilities = [
      ...new Set(found.statuses.filter((source) => source.found).map((source) => source.name)),
    ].sort();
    if (capabilities.length === 0) return { manifest: undefined, sources: found.statuses, warnings: reader.warnings };

    const memory = found.memoryDirs.flatMap((dir) => readMemoryFolder(reader, dir));
    const graph = found.graph ? readGraph(reader, found.graph) : [];
    const projects = found.brain ? readBrainProjects(reader, found.brain) : [];
    const sessions = found.brain ? readBrainLog(reader, found.brain, sinceRules(environment)) : [];
    const entities = mergeEntities([memory, graph, projects]);

    const manifest = assembleManifest({
      agent: {
        id: CLAUDE_CODE_ID,
        type: 'code-assistant',
        instance: environment.hostname,
        spec_version_compat: '>=0.1',
        role_narrative: ROLE_NARRATIVE,
      },
      now: environment.now,
      capabilities,
      sessions,
      entities,
      policy: { default: 'public', private_tags: [...PRIVATE_TAGS], team_tags: TEAM_TAGS },
      emptyLists: 'write',
    });
    return { manifest, sources: found.statuses, warnings: reader.warnings };
  },
};
