/**
 * The export path: `bourdon <participant> export` run without oclif. `bin/run.js` tries it
 * before loading the CLI, whose module graph (oclif, every command, every participant) costs
 * more start-up time and memory than a small export's whole work (bench/README.md, "Exports
 * against the engine"). Only the one participant named is loaded (PARTICIPANT_LOADERS).
 *
 * It takes the plain forms only: `<id> export` with `--out FILE`, `--since DAY`,
 * `--access-level LEVEL`, `--library DIR`, `--print`, `--dry-run` and the participant's own flags
 * (`--file`, `--url`, …), each once, as separate words. Anything else (`--json`, `--help`, a
 * `=`-joined or repeated flag, an argument, a value that fails its check, a library export with
 * a progress line to show) returns false before anything is read or printed, and oclif answers
 * instead, so every usage message and help text stays oclif's. Once the export runs, it reports
 * as the export command does (export-command.ts): the same line, warnings, `--print`, error line
 * and exit status. `BOURDON_NO_FAST_PATH=1` turns it off (docs/cli.md).
 *
 * No oclif import, directly or not: scripts/bundle.mjs builds this file as an entry of its own
 * and fails when it reaches @oclif.
 */
import fs from 'node:fs';
import path from 'node:path';
import { codeOf, describeError, exitCodeOf } from '../core/errors.js';
import { configPaths } from '../core/store/config.js';
import { parseSince } from '../core/store/dates.js';
import { libraryPaths } from '../core/store/library.js';
import { ACCESS_LEVELS, type AccessLevel } from '../core/trust/access.js';
import type { Participant } from '../participants/kit/participant.js';
import { exportEnvironment, runExport } from '../participants/runner.js';
import { exportLine } from './export-line.js';
import { humanText, setupColors, setupWidth } from './output.js';
import { writePaged } from './pager.js';
import { cliWarn, stderrLine } from './width.js';
import type * as ReadCommandsModule from './read-commands.js';

type ReadCommands = typeof ReadCommandsModule;

/**
 * Each participant's module, by CLI topic, loaded only when its export runs. The registry
 * (participants/registry.ts) holds the same participants; test/export-path.test.ts checks both
 * name the same ones.
 */
export const PARTICIPANT_LOADERS: Readonly<Record<string, () => Promise<Participant>>> = {
  'claude-code': async () => (await import('../participants/claude-code/index.js')).claudeCodeParticipant,
  codex: async () => (await import('../participants/codex/index.js')).codexParticipant,
  cursor: async () => (await import('../participants/cursor/index.js')).cursorParticipant,
  'copilot-cli': async () => (await import('../participants/copilot-cli/index.js')).copilotCliParticipant,
  'claude-code-automations': async () =>
    (await import('../participants/automations/index.js')).claudeCodeAutomationsParticipant,
  'codex-automations': async () => (await import('../participants/automations/index.js')).codexAutomationsParticipant,
  'cursor-automations': async () => (await import('../participants/automations/index.js')).cursorAutomationsParticipant,
  'copilot-automations': async () =>
    (await import('../participants/automations/index.js')).copilotAutomationsParticipant,
  'claude-desktop-code': async () =>
    (await import('../participants/claude-desktop/code.js')).claudeDesktopCodeParticipant,
  'claude-desktop-cowork': async () =>
    (await import('../participants/claude-desktop/cowork.js')).claudeDesktopCoworkParticipant,
  'mcp-memory': async () => (await import('../participants/mcp-memory/index.js')).mcpMemoryParticipant,
  openclaw: async () => (await import('../participants/openclaw/index.js')).openclawParticipant,
  cascade: async () => (await import('../participants/cascade/index.js')).cascadeParticipant,
  copilot: async () => (await import('../participants/copilot/index.js')).copilotParticipant,
  'copilot-vscode': async () => (await import('../participants/copilot-vscode/index.js')).copilotVscodeParticipant,
};

const VALUE_FLAGS = ['out', 'since', 'access-level', 'library'];
const SWITCHES = ['print', 'dry-run'];

/** The flags of `words` (after `<id> export`) by name, when every one is a plain known flag given once; else null. */
function parseFlags(
  words: readonly string[],
  values: readonly string[],
  switches: readonly string[],
): Record<string, string | true> | null {
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] ?? '';
    const name = word.startsWith('--') ? word.slice(2) : '';
    if (!name || Object.hasOwn(flags, name)) return null;
    if (switches.includes(name)) flags[name] = true;
    else if (values.includes(name)) {
      const value = words[i + 1];
      if (value === undefined || value.startsWith('-')) return null;
      flags[name] = value;
      i += 1;
    } else return null;
  }
  return flags;
}

/** Whether a library export would show its progress line (base-command.ts): oclif's path shows it. */
function progressWanted(): boolean {
  return Boolean(process.stderr.isTTY) && Boolean(process.stdout.isTTY) && process.env.TERM !== 'dumb';
}

/** A plain export call: what the export command would run with, its flags parsed and checked. */
export interface ExportCall {
  out?: string;
  since?: string;
  accessLevel: AccessLevel;
  library?: string;
  print: boolean;
  dryRun: boolean;
  /** The participant's own flags, as the variables they stand for. */
  given: Record<string, string>;
}

/**
 * The call `words` (after `<id> export`) makes of `participant` when the export path may run it;
 * null for oclif to answer (see the top of this file).
 */
export function exportCall(participant: Participant, words: readonly string[]): ExportCall | null {
  const variables = participant.help.flags ?? [];
  const flags = parseFlags(
    words,
    [...VALUE_FLAGS, ...variables.filter((flag) => !flag.switch).map((flag) => flag.name)],
    [...SWITCHES, ...variables.filter((flag) => flag.switch).map((flag) => flag.name)],
  );
  if (!flags) return null;
  const text = (name: string) => (typeof flags[name] === 'string' ? flags[name] : undefined);
  const since = text('since');
  const accessLevel = text('access-level') ?? 'team';
  if (!(ACCESS_LEVELS as readonly string[]).includes(accessLevel)) return null;
  if (since !== undefined) {
    try {
      parseSince(since);
    } catch {
      return null;
    }
  }
  const out = text('out');
  const dryRun = flags['dry-run'] === true;
  if (out === undefined && !dryRun && progressWanted()) return null;
  const given: Record<string, string> = {};
  for (const flag of variables) {
    const value = flags[flag.name];
    if (flag.switch && value === true) given[flag.env] = '1';
    if (typeof value !== 'string') continue;
    if (flag.isFile && !fs.statSync(value, { throwIfNoEntry: false })?.isFile()) return null;
    given[flag.env] = flag.isFile ? path.resolve(value) : value;
  }
  return {
    out,
    since,
    accessLevel: accessLevel as AccessLevel,
    library: text('library'),
    print: flags.print === true,
    dryRun,
    given,
  };
}

/**
 * Runs argv when it is a plain participant export, reporting as the export command does, and
 * returns true; returns false, having read and printed nothing, for oclif to answer.
 */
export async function runExportPath(argv: readonly string[]): Promise<boolean> {
  const [topic, command, ...words] = argv;
  if (command !== 'export' || topic === undefined || !Object.hasOwn(PARTICIPANT_LOADERS, topic)) return false;
  const participant = await PARTICIPANT_LOADERS[topic]!();
  const call = exportCall(participant, words);
  if (!call) return false;
  setupWidth(false);
  await setupColors();
  // The library's reader (and the operations' schemas it brings) only for an export into it.
  const reader = call.out === undefined && !call.dryRun ? await import('./read-commands.js') : null;
  try {
    const environment = exportEnvironment({ ...process.env, ...call.given }, { since: call.since });
    const report = await runExport(participant, environment, {
      accessLevel: call.accessLevel,
      out: call.out,
      dryRun: call.dryRun,
      library: () => libraryForExport(reader!, call.library),
      auditPath: configPaths(process.env).audit,
    });
    for (const warning of report.warnings) process.stderr.write(stderrLine(`bourdon: ${warning}`));
    if (call.print && report.yaml !== null) process.stdout.write(report.yaml);
    const line = exportLine(report, participant.help.lookedFor);
    if (call.print) process.stderr.write(stderrLine(line));
    else {
      const shown = humanText(line);
      if (shown) writePaged(shown.endsWith('\n') ? shown : shown + '\n');
    }
  } catch (error) {
    // As the export command's catch (base-command.ts) reports a failure after its flags parsed.
    const code = codeOf(error);
    const message = describeError(error, { withPath: true });
    if (process.env.BOURDON_DEBUG) process.stderr.write(`${(error as Error).stack ?? message}\n`);
    const help =
      code === 'usage'
        ? ` (see \`bourdon ${topic} export --help\`)`
        : code === 'internal' && !process.env.BOURDON_DEBUG
          ? ' (a bug in bourdon: BOURDON_DEBUG=1 shows where; please report it)'
          : '';
    process.stderr.write(stderrLine(`bourdon: ${message}${help}`));
    process.exitCode = code === 'usage' || code === 'cancelled' ? exitCodeOf(code) : 1;
  }
  return true;
}

/** The library an export writes into, created when missing, as base-command.ts's libraryForExport (its ids-only view). */
function libraryForExport(reader: ReadCommands, flag: string | undefined) {
  const { libraryRoot, openLibrary } = reader;
  const paths = libraryPaths(libraryRoot(flag));
  if (!fs.existsSync(paths.agents)) {
    fs.mkdirSync(paths.agents, { recursive: true });
    process.stderr.write(stderrLine(`bourdon: created the library ${paths.root}`));
  }
  const said = new Set<string>();
  const warnOnce = (message: string) => {
    if (said.has(message)) return;
    said.add(message);
    cliWarn(message);
  };
  return openLibrary(flag, warnOnce, 'ids', { config: configPaths(process.env) });
}
