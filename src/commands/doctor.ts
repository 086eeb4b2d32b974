import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { colors, outputColumns, wrap } from '../cli/output.js';
import { cutVisible } from '../cli/width.js';
import { configPaths } from '../core/store/config.js';
import {
  DEFAULT_STALE_DAYS,
  runDoctor,
  type CheckResult,
  type DoctorReport,
  type Verdict,
} from '../core/admin/doctor.js';
import type { PeerConfig } from '../core/federation/peers-config.js';
import type { PeerProbe } from '../core/admin/doctor/peers.js';
import { PARTICIPANT_CHECK, participantChecks, withChecks } from '../cli/participant-checks.js';

export default class Doctor extends BaseCommand {
  static override summary = 'Check that everything Bourdon depends on is healthy.';
  static override description = `One verdict per check — ok, info, warn or FAIL — with the reason and what to do:

  library       the library folder exists and has agents/
  manifests     every manifest parses (each unreadable file is named, with why)
  duplicate ids no two files declare the same agent id
  schema        rows queries cannot read (no name, no date) fail; tolerated deviations warn
  write gate    a writer can take the library lock (it is taken and released at once)
  staging       nothing staged more than --stale-days days ago (default 7), nothing unreadable
  config dir    ~/.bourdon (BOURDON_HOME) is private to you
  registry      federation.yaml parses; revoked members listed; file private
  grants        quarantined members without grants (they can read nothing)
  HTTP auth     whether \`serve --transport http\` can authenticate anyone
  peers         peers.yaml is valid and each token variable is set
  reachability  every peer answers (skipped with --offline)
  audit log     the audit log can be appended to (rollbacks need it)
  sync remote   git present, the remote reachable and writable, this machine's publication signed by this library; each machine's key (when \`bourdon sync init\` set one)
  watch         the watch service installed (\`bourdon watch --install\`), running, its last export and log

Then one line per agent Bourdon can read (every participant): its native sources found (ok), found but unreadable (warn), or not on this machine (info); --json has each source's path and last change.

Exits 1 when any check fails (with --strict, also on warnings); 0 otherwise. Nothing is changed, except that the write gate is taken and released.`;
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --offline',
    {
      description: 'Only the failing checks, for a script',
      command: '<%= config.bin %> doctor --json | jq \'.checks[] | select(.verdict == "fail")\'',
    },
    {
      description: 'In CI, warnings count too',
      command: '<%= config.bin %> doctor --strict',
    },
  ];
  static override flags = {
    offline: Flags.boolean({ description: 'Do not call peers (skip the reachability check).', default: false }),
    strict: Flags.boolean({ description: 'Exit 1 on warnings too.', default: false }),
    'stale-days': Flags.integer({
      description: `Staged writes older than this fail (default ${DEFAULT_STALE_DAYS}).`,
      min: 0,
      helpValue: '<days>',
    }),
    'peer-timeout': Flags.integer({
      description: 'Budget per peer call, in milliseconds.',
      default: 5000,
      min: 100,
      helpValue: '<ms>',
    }),
  };

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor);
    const root = this.libraryRoot(flags.library);
    const stop = this.startProgress('checking the library, members, staging, peers and audit log…');
    let report: DoctorReport;
    try {
      report = await runDoctor({
        libraryRoot: root,
        config: configPaths(process.env),
        env: process.env,
        staleDays: flags['stale-days'] ?? DEFAULT_STALE_DAYS,
        probePeer: flags.offline ? undefined : await peerProbe(flags['peer-timeout']),
      });
      const { syncDoctorChecks } = await import('../sync/setup.js');
      const syncChecks = await syncDoctorChecks({ library: root, env: process.env, offline: flags.offline });
      const { watchDoctorCheck } = await import('../watch/doctor-check.js');
      const watchCheck = watchDoctorCheck(root, process.env);
      report = withChecks(report, [...(await participantChecks()), ...syncChecks, watchCheck]);
    } finally {
      stop();
    }
    this.emit(report, () => renderReport(report));
    if (!report.ok || (flags.strict && report.counts.warn > 0)) this.exitAfter(report, 1);
    return report;
  }
}

async function peerProbe(timeoutMs: number): Promise<(peer: PeerConfig) => Promise<PeerProbe>> {
  const { checkPeer } = await import('../mcp/peer-check.js');
  return async (peer) => {
    const result = await checkPeer(peer, process.env, timeoutMs);
    return {
      reachable: result.reachable,
      latency_ms: result.latency_ms,
      error: result.error,
      left_out: result.left_out,
    };
  };
}

const LABELS: Record<Verdict, string> = { ok: 'ok', info: 'info', warn: 'warn', fail: 'FAIL' };

function paint(verdict: Verdict, text: string): string {
  const c = colors();
  if (verdict === 'ok') return c.green(text);
  if (verdict === 'warn') return c.yellow(text);
  if (verdict === 'fail') return c.red(c.bold(text));
  return c.cyan(text);
}

/**
 * The participants' checks: one line each, cut to the width rather than wrapped — a
 * verdict, the agent id and its sources found or missing (their paths are in --json).
 */
function participantLines(checks: readonly CheckResult[]): string[] {
  if (checks.length === 0) return [];
  const c = colors();
  const ids = checks.map((result) => result.id.slice(PARTICIPANT_CHECK.length));
  const idWidth = Math.max(...ids.map((id) => id.length));
  const width = outputColumns();
  return [
    '',
    wrap(`${c.bold('Agents on this machine')} ${c.dim('(their native sources; --json has the paths)')}`),
    ...checks.map((result, index) => {
      const line = `${paint(result.verdict, LABELS[result.verdict].padEnd(4))}  ${ids[index]!.padEnd(idWidth)}  ${result.summary}`;
      return width === null ? line : cutVisible(line, width);
    }),
  ];
}

export function renderReport(report: DoctorReport): string {
  const c = colors();
  const isParticipant = (result: CheckResult) => result.id.startsWith(PARTICIPANT_CHECK);
  const general = report.checks.filter((result) => !isParticipant(result));
  const titleWidth = Math.max(...general.map((result) => result.title.length));
  const line = (result: CheckResult) => {
    const head = `${paint(result.verdict, LABELS[result.verdict].padEnd(4))}  ${result.title.padEnd(titleWidth)}  ${result.summary}`;
    const indent = ' '.repeat(4 + 2 + titleWidth + 2);
    // Continued lines start under the summary, so the verdicts stay a column of their own.
    const fit = (text: string) => wrap(text, { continuation: indent.length });
    return [fit(head), ...result.details.map((detail) => c.dim(fit(`${indent}${detail}`)))].join('\n');
  };
  const { fail, warn } = report.counts;
  const verdict =
    fail > 0
      ? c.red(
          `${fail} ${fail === 1 ? 'problem' : 'problems'}${warn ? `, ${warn} ${warn === 1 ? 'warning' : 'warnings'}` : ''}.`,
        )
      : warn > 0
        ? c.yellow(`No problems; ${warn} ${warn === 1 ? 'warning' : 'warnings'}.`)
        : c.green('Everything looks healthy.');
  return [
    wrap(c.bold(`bourdon doctor`) + c.dim(` — library ${report.library}, config ${report.config_dir}`)),
    '',
    ...general.map(line),
    ...participantLines(report.checks.filter(isParticipant)),
    '',
    verdict,
  ].join('\n');
}
