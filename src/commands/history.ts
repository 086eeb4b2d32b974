import { BaseCommand } from '../cli/base-command.js';
import { colors, commandHint, shellWord, styled, table, wrap } from '../cli/output.js';
import { oclifArgs, oclifFlags } from '../cli/flags.js';
import { failed } from '../core/payload.js';
import { listMemoryVersionsOperation } from '../core/operations/write-operations.js';
import type { CappedVersionView, ListVersionsAnswer, VersionView } from '../core/writes/versions.js';
import { historyCommand, historyPayload } from '../cli/read-commands.js';

export default class History extends BaseCommand {
  static override summary = "The versions of an agent's manifest, newest first.";
  static override description = `Every write this project made to agents/<agent_id>.l5.yaml (commit, promote, rollback), plus edits other tools made in between (op external), with time, actor, row counts and hash; * marks the version the file holds now. Tool: ${listMemoryVersionsOperation.name}. See \`bourdon diff\` and \`bourdon rollback\`.`;
  static override examples = [
    '<%= config.bin %> history codex',
    '<%= config.bin %> history codex --limit 100 --json | jq ".versions[] | {version, op, entities}"',
  ];
  static override args = oclifArgs(historyCommand.args);
  static override flags = oclifFlags(historyCommand.flags);

  async run(): Promise<ListVersionsAnswer> {
    const { args, flags } = await this.parse(History);
    // No versions and no manifest is a typo, not an agent without history: historyPayload says so.
    const payload = await historyPayload(this.open, args, flags);
    if (failed(payload)) return this.failOnPayloadError(payload);
    const versions: readonly (VersionView | CappedVersionView)[] = payload.versions;
    const oldest = versions.at(-1)?.version ?? 0;
    const limit = flags.limit ?? 20;
    const more =
      versions.length === limit && oldest > 1
        ? '\n' + commandHint('Older: ', nextHistoryCommand(args.agent_id, Math.min(1000, limit * 2), flags.library))
        : '';
    return this.emit(payload, () => renderHistory(args.agent_id, versions) + more);
  }
}

function count(value: number | null): string {
  return value === null ? '?' : String(value);
}

function renderHistory(agentId: string, versions: readonly (VersionView | CappedVersionView)[]): string {
  if (versions.length === 0) return `No recorded versions for ${agentId} yet (the first write records them).`;
  const c = colors();
  const rows = versions.map((v) => [
    `${v.current ? '*' : ' '}${v.version}`,
    v.ts.replace('T', ' ').slice(0, 16),
    v.op,
    v.actor ?? '-',
    count(v.entities),
    count(v.sessions),
    count(v.notes),
    String(v.bytes),
    styled((v.sha256 ?? '-').slice(0, 12), c.dim),
  ]);
  // Short count headers (ENT, SES) so the nine columns fit 80 characters; --json has the names.
  const listing = table([' V', 'WHEN (UTC)', 'OP', 'ACTOR', 'ENT', 'SES', 'NOTES', 'BYTES', 'SHA256'], rows, {
    flex: [8],
    wrapLast: false,
  });
  // What each rollback restored and why, under the table (a tenth column would not fit 80).
  const restores = versions
    .filter((v) => v.op === 'rollback' && v.restored_version !== undefined)
    .map((v) => wrap(`version ${v.version} ${restoreText(v)}`, { continuation: 2 }));
  return restores.length ? `${listing}\n\n${restores.join('\n')}` : listing;
}

/** "restored version 3: “the import was wrong”", as the page says it. */
function restoreText(v: VersionView | CappedVersionView): string {
  const restored = `restored version ${v.restored_version ?? '?'}`;
  return v.reason ? `${restored}: “${v.reason}”` : restored;
}

function nextHistoryCommand(agentId: string, limit: number, library: string | undefined): string[] {
  const words = ['bourdon', 'history', shellWord(agentId), '--limit', String(limit)];
  if (library) words.push('--library', shellWord(library));
  return words;
}
