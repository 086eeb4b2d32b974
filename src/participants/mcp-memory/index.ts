/**
 * The mcp-memory participant: the official MCP memory server's knowledge graph
 * (`@modelcontextprotocol/server-memory`, JSONL entity and relation lines) published as agent
 * `mcp-memory`, with the claude-code participant's graph rules (knowledge-graph.ts): person types
 * and credential-like observations make an entity private, so it is never exported. Relations
 * have no place in an L5 manifest and are not exported. Beyond the engine, which reads only
 * `~/claude-memory/memory.jsonl` inside claude-code; docs/participants.md.
 */
import type { ExportEnvironment, Participant, ParticipantExport, SourceStatus } from '../kit/participant.js';
import { modifiedAt, SourceReader } from '../kit/source-reader.js';
import { readGraph } from '../kit/knowledge-graph.js';
import { assembleManifest, PRIVATE_TAGS } from '../kit/manifest-shape.js';
import { mergeEntities } from '../kit/rows.js';
import { memoryFileCandidates } from './locate.js';

const MCP_MEMORY_ID = 'mcp-memory';

const ROLE_NARRATIVE =
  "The MCP memory server's knowledge graph: entities and their observations that MCP hosts " +
  '(Claude Desktop, Claude Code, Cursor, …) stored through its tools, shared with the other agents.';

function locate(environment: ExportEnvironment, reader: SourceReader): SourceStatus[] {
  return memoryFileCandidates(environment, reader).map((candidate) => {
    const found = reader.isFile(candidate.path);
    return found
      ? { name: 'knowledge_graph', path: candidate.path, found, modified: modifiedAt(candidate.path) }
      : { name: 'knowledge_graph', path: candidate.path, found };
  });
}

export const mcpMemoryParticipant: Participant = {
  agentId: MCP_MEMORY_ID,
  watch: { follow: 'sources' },
  topic: 'mcp-memory',
  help: {
    summary: "Publish the MCP memory server's knowledge graph as the mcp-memory manifest.",
    reads:
      "Reads the knowledge graph of the official MCP memory server (@modelcontextprotocol/server-memory): --file, else $MEMORY_FILE_PATH, else the MEMORY_FILE_PATH your MCP hosts' configs give that server (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex), else the server's default file. Entities become known entities (first two observations as the summary); people and entities with credential-like observations stay private and are not exported.",
    flags: [
      {
        name: 'file',
        env: 'MEMORY_FILE_PATH',
        description: 'The graph file (JSONL) to read.',
        helpValue: '<file>',
        isFile: true,
      },
    ],
    lookedFor:
      "--file and $MEMORY_FILE_PATH (not set), a memory server in the MCP hosts' configs (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex: none), the server's default file beside its install (none)",
  },

  async sources(environment) {
    return locate(environment, new SourceReader([environment.home], { workingFolder: environment.cwd }));
  },

  async export(environment): Promise<ParticipantExport> {
    const reader = new SourceReader([environment.home], { workingFolder: environment.cwd });
    const sources = locate(environment, reader);
    const files = sources.filter((source) => source.found).map((source) => source.path);
    if (files.length === 0) return { manifest: undefined, sources, warnings: reader.warnings };
    const entities = mergeEntities(files.map((file) => readGraph(reader, file)));
    const manifest = assembleManifest({
      agent: {
        id: MCP_MEMORY_ID,
        type: 'note-capture',
        instance: environment.hostname,
        spec_version_compat: '>=0.1',
        role_narrative: ROLE_NARRATIVE,
      },
      now: environment.now,
      capabilities: ['knowledge_graph'],
      entities,
      policy: { default: 'public', private_tags: [...PRIVATE_TAGS] },
      emptyLists: 'write',
    });
    return { manifest, sources, warnings: reader.warnings };
  },
};
