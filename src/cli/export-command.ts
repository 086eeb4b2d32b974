/**
 * What every `bourdon <participant> export` command shares: its flags, looking the participant
 * up in the registry, running the export runner and reporting (a line, `--print`'s YAML, or
 * `--json`). The command files only name their participant.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { exportLine } from './export-line.js';
import { stderrLine } from './width.js';
import { BourdonError, exitCodeOf, type ErrorCode } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import { parseSince, SINCE_FORMS } from '../core/store/dates.js';
import { ACCESS_LEVELS, type AccessLevel } from '../core/trust/access.js';
import { PARTICIPANTS } from '../participants/registry.js';
import { exportEnvironment, runExport, type ExportReport } from '../participants/runner.js';
import type { ExportEnvironment, Participant, VariableFlag } from '../participants/kit/participant.js';

/** The flags of every export command (and of export-all, but --out and --print). */
export const exportFlags = {
  out: Flags.string({
    description: "Write the manifest to this file instead of the library's agents/<agent-id>.l5.yaml.",
    helpValue: '<file>',
  }),
  // The one --since grammar (dates.ts parseSince), checked here so a bad value is refused as every
  // command refuses it; a relative day is resolved by the export's clock (exportEnvironment).
  since: Flags.custom<string>({
    description: `Only sessions on or after this day: ${SINCE_FORMS}.`,
    helpValue: '<day>',
    parse: async (input) => {
      parseSince(input);
      return input;
    },
  })(),
  'access-level': Flags.option({
    description: 'Rows above this level are dropped before writing (default team).',
    options: ACCESS_LEVELS,
    default: 'team',
  })(),
  print: Flags.boolean({ description: 'Print the manifest (YAML) on stdout.', default: false }),
  'dry-run': Flags.boolean({ description: 'Read and build the manifest, write nothing.', default: false }),
};

export interface ExportFlags {
  out?: string;
  since?: string;
  'access-level': AccessLevel;
  print: boolean;
  'dry-run': boolean;
  library?: string;
}

/** What an export command answers: its report, with the YAML only when --print asked for it. */
export type ExportPayload = Omit<ExportReport, 'yaml'> & { yaml?: string | null };

abstract class ExportCommand extends BaseCommand {
  /**
   * An export that fails exits 1, as the engine's exporters do (the participants' recorded cases
   * fix it: openclaw's refused handshake); a usage error or Ctrl-C keeps its own. `--json` and the
   * audit line still carry the failure's code (docs/errors.md).
   */
  protected override exitStatusOf(code: ErrorCode): number {
    return code === 'usage' || code === 'cancelled' ? exitCodeOf(code) : 1;
  }

  /** Runs `participant` with the parsed flags; `environment` lets a command add to it (--file). */
  protected async exportWith(
    participant: Participant,
    flags: ExportFlags,
    environment: ExportEnvironment = exportEnvironment(process.env, { since: flags.since }),
  ): Promise<ExportPayload> {
    const report = await runExport(participant, environment, {
      accessLevel: flags['access-level'],
      out: flags.out,
      dryRun: flags['dry-run'],
      library: () => this.libraryForExport(flags.library),
      auditPath: configPaths(process.env).audit,
    });
    const { yaml, ...rest } = report;
    const payload = flags.print ? { ...rest, yaml } : rest;
    if (this.jsonEnabled()) return payload;
    for (const warning of report.warnings) process.stderr.write(stderrLine(`bourdon: ${warning}`));
    if (flags.print && yaml !== null) process.stdout.write(yaml);
    const line = exportLine(report, participant.help.lookedFor);
    // With --print, stdout is the manifest: the report line goes to stderr.
    if (flags.print) process.stderr.write(stderrLine(line));
    else this.say(line);
    return payload;
  }
}

/** The flag a participant's variable flag becomes on its command (`--file <file>`). */
function variableFlagDefinition(flag: VariableFlag) {
  if (flag.switch) return Flags.boolean({ description: flag.description });
  return Flags.string({ description: flag.description, helpValue: flag.helpValue });
}

/**
 * `bourdon <topic> export` for one registered participant, built from its help text: every
 * participant's command has the same flags and behaviour, so adding a participant adds no
 * command file (scripts/bundle.mjs registers one per registry entry).
 */
function participantExportCommand(participant: Participant): typeof ExportCommand {
  const { agentId, topic, help } = participant;
  const variables = help.flags ?? [];
  const flags = {
    ...exportFlags,
    ...(participant.staged
      ? {
          out: Flags.string({
            description: `Write the manifest to this file instead of staging it in the library's staging/${agentId}/.`,
            helpValue: '<file>',
          }),
        }
      : {}),
    ...Object.fromEntries(variables.map((flag) => [flag.name, variableFlagDefinition(flag)])),
  };
  const writes =
    help.writes ??
    `Written into the library as a new version of agents/${agentId}.l5.yaml (history, lock, audit: \`bourdon rollback ${agentId} <version>\` undoes it), or to --out FILE.`;
  return class ParticipantExport extends ExportCommand {
    static override summary = help.summary;
    static override description = `${help.reads} ${writes} Rows above --access-level (default team) are dropped and secret values are redacted before anything is written. The clock is SOURCE_DATE_EPOCH when set. docs/participants.md has the sources and rules.`;
    static override examples = help.examples
      ? [...help.examples]
      : [
          `<%= config.bin %> ${topic} export`,
          `<%= config.bin %> ${topic} export --since 2026-04-01 --dry-run --json`,
          `<%= config.bin %> ${topic} export --out ${agentId}.l5.yaml --print`,
        ];
    static override flags = flags;

    async run(): Promise<ExportPayload> {
      const { flags: parsed } = await this.parse(ParticipantExport);
      // Each variable flag is its variable given on the command line: the same precedence and
      // checks, one code path.
      const given: Record<string, string> = {};
      const values: Record<string, unknown> = parsed;
      for (const flag of variables) {
        const value = values[flag.name];
        if (flag.switch && value === true) given[flag.env] = '1';
        if (typeof value !== 'string') continue;
        if (flag.isFile && !fs.statSync(value, { throwIfNoEntry: false })?.isFile())
          throw new BourdonError(`--${flag.name} ${value}: no such file`, 'not_found');
        given[flag.env] = flag.isFile ? path.resolve(value) : value;
      }
      const env = { ...process.env, ...given };
      return this.exportWith(participant, parsed, exportEnvironment(env, { since: parsed.since }));
    }
  };
}

/** Every registered participant's export command, by oclif command id (`codex:export`). */
export function participantExportCommands(): Record<string, typeof ExportCommand> {
  return Object.fromEntries(
    PARTICIPANTS.map((participant) => [`${participant.topic}:export`, participantExportCommand(participant)]),
  );
}
