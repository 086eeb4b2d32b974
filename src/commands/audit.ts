import { Flags } from '@oclif/core';
import { BaseCommand, NO_LIBRARY_FLAGS } from '../cli/base-command.js';
import { colors, printable, relativeTime, styled, table } from '../cli/output.js';
import { wideFlag } from '../cli/flags.js';
import { queryAudit, type AuditRecord } from '../core/trust/audit.js';
import { configPaths } from '../core/store/config.js';

/** Human output shows this many records unless --limit says otherwise; exports show all. */
export const HUMAN_DEFAULT_LIMIT = 50;

export default class Audit extends BaseCommand {
  static override baseFlags = NO_LIBRARY_FLAGS;
  static override summary = 'Show the audit trail: who called or wrote what, and what came of it.';
  static override description =
    'Reads the audit log ($BOURDON_AUDIT_PATH, else ~/.bourdon/audit.jsonl): one record per tool call, resource read and CLI write (commit, note add, sync push, sync pull), with its decision: allow, deny (refused, and why) or fail (allowed but failed, and why). The table lists the newest first, as the review page does (--oldest-first for the other order); --json and --export keep the order of the log, oldest first. A torn last line (a crash mid-write) is skipped. --export prints the records as JSON lines (a JSON array with --json). Without --limit, the table shows the newest 50; --export and --json show every match.';
  static override examples = [
    '<%= config.bin %> audit',
    '<%= config.bin %> audit --denials --agent openclaw',
    '<%= config.bin %> audit --export > audit.jsonl',
    '<%= config.bin %> audit --limit 20 --json',
  ];
  static override flags = {
    agent: Flags.string({ description: "Only this caller's records.", helpValue: '<id>' }),
    denials: Flags.boolean({ description: 'Only denied calls.', default: false }),
    limit: Flags.integer({ description: 'Only the newest N records.', min: 0, helpValue: '<n>' }),
    export: Flags.boolean({ description: 'Print JSON lines (with --json: one JSON array).', default: false }),
    'oldest-first': Flags.boolean({
      description: 'List the table oldest first (default: newest first).',
      default: false,
    }),
    ...wideFlag,
  };

  async run(): Promise<AuditRecord[]> {
    const { flags } = await this.parse(Audit);
    const auditPath = configPaths(process.env).audit;
    const machine = this.jsonEnabled() || flags.export;
    const limit = flags.limit ?? (machine ? undefined : HUMAN_DEFAULT_LIMIT);
    const { records, matched } = await queryAudit(auditPath, { agent: flags.agent, denials: flags.denials, limit });
    if (this.jsonEnabled()) return records;
    if (flags.export) {
      process.stdout.write(records.map((record) => JSON.stringify(record) + '\n').join(''));
      return records;
    }
    // The table reads as the page does, newest first; the log and --json stay in time order.
    const shown = flags['oldest-first'] ? records : [...records].reverse();
    this.say(renderAudit(shown, matched, flags.limit === undefined));
    return records;
  }
}

function renderAudit(records: AuditRecord[], matched: number, defaultLimit: boolean): string {
  if (matched === 0) return 'No audit records match.';
  const c = colors();
  const rows = records.map((record) => [
    relativeTime(record.ts),
    String(record.agent),
    String(record.op),
    String(record.namespace),
    record.decision === 'deny'
      ? styled('deny', c.red)
      : record.decision === 'fail'
        ? styled('fail', c.yellow)
        : String(record.decision),
    String(record.detail ?? ''),
  ]);
  const out = table(['TIME', 'AGENT', 'OP', 'NAMESPACE', 'DECISION', 'DETAIL'], rows, { flex: [3, 5] });
  if (records.length < matched) {
    const hint = defaultLimit ? ' (--limit N for more, --export for all)' : '';
    return `${out}\n${c.dim(`newest ${records.length} of ${matched} records${hint}`)}`;
  }
  return out;
}

/** Kept for importers: control characters shown escaped (now shared by every table). */
export { printable };
