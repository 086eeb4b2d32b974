import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { colors, table } from '../cli/output.js';
import type { Payload } from '../core/operations/reads.js';
import { listMemoryVersions, type VersionView } from '../core/writes/versions.js';

export default class History extends BaseCommand {
  static override summary = "The versions of an agent's manifest, newest first.";
  static override description =
    'Every write this project made to agents/<agent_id>.l5.yaml (commit, promote, rollback), plus edits other tools made in between (op external), with time, actor, row counts and hash; * marks the version the file holds now. Tool: list_memory_versions. See `bourdon diff` and `bourdon rollback`.';
  static override examples = [
    '<%= config.bin %> history codex',
    '<%= config.bin %> history codex --limit 100 --json | jq ".versions[] | {version, op, entities}"',
  ];
  static override args = { agent_id: Args.string({ description: 'Agent id.', required: true }) };
  static override flags = {
    limit: Flags.integer({ description: 'How many versions (default 20, at most 1000).' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(History);
    const payload: Payload = await listMemoryVersions(this.openContext(flags.library), {
      agent_id: args.agent_id,
      limit: flags.limit,
    });
    this.failOnPayloadError(payload);
    this.emit(payload, () => renderHistory(args.agent_id, payload.versions as VersionView[]));
  }
}

function count(value: number | null): string {
  return value === null ? '?' : String(value);
}

function renderHistory(agentId: string, versions: VersionView[]): string {
  if (versions.length === 0) return `No recorded versions for ${agentId} yet (the first write records them).`;
  const c = colors();
  const rows = versions.map((v) => [
    `${v.current ? '*' : ' '}${v.version}`,
    v.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    v.op,
    v.actor ?? '-',
    count(v.entities),
    count(v.sessions),
    count(v.notes),
    String(v.bytes),
    c.dim(v.sha256.slice(0, 12)),
  ]);
  return table([' VERSION', 'WHEN (UTC)', 'OP', 'ACTOR', 'ENTITIES', 'SESSIONS', 'NOTES', 'BYTES', 'SHA256'], rows);
}
