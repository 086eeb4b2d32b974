/**
 * What every `bourdon <participant> export` command shares: its flags, looking the participant
 * up in the registry, running the export runner and reporting (a line, `--print`'s YAML, or
 * `--json`). The command files only name their participant.
 */
import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { colors, plural } from './output.js';
import { stderrLine } from './width.js';
import { BourdonError } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import { ACCESS_LEVELS, type AccessLevel } from '../core/trust/access.js';
import { participantById } from '../participants/registry.js';
import { exportEnvironment, runExport, type ExportReport } from '../participants/runner.js';
import type { ExportEnvironment, Participant } from '../participants/participant.js';

/** The flags of every export command (and of export-all, but --out and --print). */
export const exportFlags = {
  out: Flags.string({
    description: "Write the manifest to this file instead of the library's agents/<agent-id>.l5.yaml.",
    helpValue: '<file>',
  }),
  since: Flags.string({ description: 'Only sessions on or after this day (YYYY-MM-DD).', helpValue: '<day>' }),
  'access-level': Flags.string({
    description: 'Rows above this level are dropped before writing (default team).',
    options: [...ACCESS_LEVELS],
    default: 'team',
  }),
  print: Flags.boolean({ description: 'Print the manifest (YAML) on stdout.', default: false }),
  'dry-run': Flags.boolean({ description: 'Read and build the manifest, write nothing.', default: false }),
};

export interface ExportFlags {
  out?: string;
  since?: string;
  'access-level': string;
  print: boolean;
  'dry-run': boolean;
  library?: string;
}

/** The participant registered under `id`, or a one-line error naming what is. */
export function registeredParticipant(id: string): Participant {
  const participant = participantById(id);
  if (!participant) {
    throw new BourdonError(
      `the ${id} participant is not part of this build yet; \`bourdon export-all\` runs the ones that are`,
    );
  }
  return participant;
}

export abstract class ExportCommand extends BaseCommand {
  /** Runs `participant` with the parsed flags; `environment` lets a command add to it (--file). */
  protected async exportWith(
    participant: Participant,
    flags: ExportFlags,
    environment: ExportEnvironment = exportEnvironment(process.env, { since: flags.since }),
  ): Promise<ExportReport> {
    const report = await runExport(participant, environment, {
      accessLevel: flags['access-level'] as AccessLevel,
      out: flags.out,
      dryRun: flags['dry-run'],
      library: () => this.libraryForExport(flags.library),
      auditPath: configPaths(process.env).audit,
    });
    if (!this.jsonMode) for (const warning of report.warnings) process.stderr.write(stderrLine(`bourdon: ${warning}`));
    if (flags.print && report.yaml !== null && !this.jsonMode) process.stdout.write(report.yaml);
    const { yaml, ...rest } = report;
    const payload = flags.print ? { ...rest, yaml } : rest;
    if (this.jsonMode) this.emit(payload, () => '');
    else {
      const line = exportLine(report);
      // With --print, stdout is the manifest: the report line goes to stderr.
      if (flags.print) process.stderr.write(stderrLine(line));
      else this.emit(payload, () => line);
    }
    return report;
  }
}

/** One line saying what an export did. */
export function exportLine(report: ExportReport): string {
  const c = colors();
  if (report.outcome === 'nothing') {
    const looked = report.sources.map((source) => source.path).join(', ');
    return `${c.cyan('nothing')} ${report.agent_id}: no source found${looked ? ` (looked for ${looked})` : ''}; nothing written`;
  }
  const counts = report.counts
    ? `${plural(report.counts.entities, 'entity', 'entities')}, ${plural(report.counts.sessions, 'session')}`
    : '';
  if (report.outcome === 'dry-run') return `${c.cyan('dry run')} ${report.agent_id}: ${counts}; nothing written`;
  const kept = report.kept && report.kept.entities + report.kept.sessions + report.kept.notes > 0;
  const keptText = kept
    ? c.dim(
        ` (kept from other writers: ${report.kept!.entities} entities, ${report.kept!.sessions} sessions, ${report.kept!.notes} notes)`,
      )
    : '';
  if (!report.written)
    return `${c.cyan('unchanged')} ${report.agent_id}: ${counts}; ${report.path} already holds them${report.version !== null ? ` (version ${report.version})` : ''}`;
  const version = report.version !== null ? ` ${c.bold(`version ${report.version}`)}` : '';
  return `${c.green('exported')} ${report.agent_id}${version}: ${counts} → ${report.path}${keptText}`;
}
