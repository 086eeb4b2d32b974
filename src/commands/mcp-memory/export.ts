import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { ExportCommand, exportFlags, registeredParticipant } from '../../cli/export-command.js';
import { BourdonError } from '../../core/errors.js';
import { exportEnvironment } from '../../participants/runner.js';

export default class McpMemoryExport extends ExportCommand {
  static override summary = "Publish the MCP memory server's knowledge graph as the mcp-memory manifest.";
  static override description = `Reads the knowledge graph of the official MCP memory server (@modelcontextprotocol/server-memory): --file, else $MEMORY_FILE_PATH, else the MEMORY_FILE_PATH your MCP hosts' configs give that server (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex), else the server's default file. Entities become known entities (first two observations as the summary); people and entities with credential-like observations stay private and are not exported. Written into the library as a new version of agents/mcp-memory.l5.yaml (\`bourdon rollback mcp-memory <version>\` undoes it), or to --out FILE. docs/participants.md has the rules.`;
  static override examples = [
    '<%= config.bin %> mcp-memory export',
    '<%= config.bin %> mcp-memory export --file memory.jsonl --dry-run --json',
    '<%= config.bin %> mcp-memory export --out mcp-memory.l5.yaml --print',
  ];
  static override flags = {
    ...exportFlags,
    file: Flags.string({ description: 'The graph file (JSONL) to read.', helpValue: '<file>' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(McpMemoryExport);
    if (flags.file !== undefined && !fs.statSync(flags.file, { throwIfNoEntry: false })?.isFile())
      throw new BourdonError(`--file ${flags.file}: no such file`, 'not_found');
    // --file is MEMORY_FILE_PATH given on the command line: the same precedence, one code path.
    const env = flags.file === undefined ? process.env : { ...process.env, MEMORY_FILE_PATH: path.resolve(flags.file) };
    await this.exportWith(registeredParticipant('mcp-memory'), flags, exportEnvironment(env, { since: flags.since }));
  }
}
