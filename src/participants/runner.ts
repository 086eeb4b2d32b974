/**
 * The export runner: everything an export does around a participant, the same for all of them.
 * It builds the ExportEnvironment (clock, machine name, `--since`), runs the participant, finishes
 * its manifest (filters and redaction, finish.ts), serialises it with the project's YAML writer
 * and writes it: to `--out FILE` atomically, or into the library with one call to core
 * (core/writes/export-write.ts `writeExport`: a new version, or staging for review for a
 * participant the engine stages, `staged`). `--dry-run` writes nothing; `--print` gives the YAML
 * back to print. The secrets a participant was given (its token) are removed from all of it, and
 * from a failure's message.
 */
import os from 'node:os';
import path from 'node:path';
import type { OperationContext } from '../core/context.js';
import { BourdonError, codeOf, describeError } from '../core/errors.js';
import { parseSince, sourceDateEpoch } from '../core/store/dates.js';
import { sinceOf } from './kit/since.js';
import type { AccessLevel } from '../core/trust/access.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import { SerialiseRefused, serialiseManifest } from '../core/writes/writes.js';
import type { RawObject } from '../core/store/manifest.js';
import { fitWrittenManifest } from '../core/store/lenient-reader.js';
import { finishManifest, fitManifest, type FinishCounts } from './finish.js';
import { MAX_MANIFEST_BYTES } from '../core/store/library.js';
import { auditExportFailure, writeExport, type ExportKept } from '../core/writes/export-write.js';
import type { ExportEnvironment, Participant, SourceStatus } from './kit/participant.js';
import { plural } from '../core/store/words.js';
import { knownSecrets, maskedMessage, valueWithoutSecrets, withoutSecrets } from './known-secrets.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The clock of an export: SOURCE_DATE_EPOCH (whole seconds since 1970, the reproducible-builds
 * convention) when it is set, else now. A malformed value is refused rather than ignored.
 */
function exportClock(env: Env, now: () => Date = () => new Date()): Date {
  return sourceDateEpoch(env) ?? now();
}

/**
 * The environment a participant reads from: this process's, with the export's clock and name.
 * `since` is read by the one `--since` grammar (dates.ts `parseSince`): a day or an ISO time as
 * written, or a relative form (`7d`) as the day it names by the export's clock.
 */
export function exportEnvironment(env: Env, options: { since?: string; cwd?: string } = {}): ExportEnvironment {
  const named = env.BOURDON_LOCAL_NAME?.trim();
  const now = exportClock(env);
  const since = options.since === undefined ? undefined : parseSince(options.since, now);
  return {
    home: env.HOME && env.HOME.trim() ? env.HOME : os.homedir(),
    env,
    cwd: options.cwd ?? process.cwd(),
    now,
    hostname: named ? named : os.hostname(),
    since: sinceOf(since),
    platform: process.platform,
  };
}

export interface ExportOptions {
  accessLevel: AccessLevel;
  /** Write here instead of the library. */
  out?: string;
  /** Write nothing. */
  dryRun: boolean;
  /** The library to write into (when not --out and not --dry-run); opened by the caller. */
  library?: () => OperationContext;
  /** The audit log that names the export (library writes only). */
  auditPath?: string;
}

/** The words an export's outcome is said in (ExportReport.outcome); export-all adds `failed`. */
export type ExportOutcome = 'exported' | 'unchanged' | 'staged' | 'skipped' | 'dry-run';

/** The reason of an export that found no source. */
export const NO_SOURCE_FOUND = 'no source found';

export interface ExportReport {
  participant: string;
  agent_id: string;
  /**
   * What became of the export, the same words in `--json` and the human line (docs/cli.md,
   * "Export outcomes"): exported (a new version or file written), unchanged (the library, or
   * what is staged, already held exactly these rows: nothing written), staged (written to
   * staging for review), skipped (no source found: nothing written), dry-run (with --dry-run:
   * built, nothing written). `failed` is export-all's: a single export that fails is an error.
   */
  outcome: ExportOutcome;
  /** Why it was skipped; null otherwise. */
  reason: string | null;
  sources: readonly SourceStatus[];
  warnings: readonly string[];
  counts: FinishCounts | null;
  /** The file written, or null. */
  path: string | null;
  /** The library version written or held (library writes only). */
  version: number | null;
  /** false when the library already held exactly this (no new version). */
  written: boolean;
  /**
   * true when the rows are in staging for review (`bourdon staging promote <agent-id>`), written
   * now or already there; false for a live write, and for a staged participant whose rows the
   * live manifest already holds (nothing staged).
   */
  staged: boolean;
  /** Rows other writers had added or changed, applied again on top (library writes only). */
  kept: ExportKept | null;
  /** The YAML that was (or would be) written; null when there is none. */
  yaml: string | null;
}

/**
 * Runs one participant and writes what it exported, as `options` say. An export into the
 * library that fails (a refused handshake, an unreachable instance, a refused write) leaves one
 * audit line, as every audited write does (docs/errors.md): its decision the code's, its
 * detail the code and the message.
 */
export async function runExport(
  participant: Participant,
  environment: ExportEnvironment,
  options: ExportOptions,
): Promise<ExportReport> {
  try {
    return await exportAndWrite(participant, environment, options);
  } catch (error) {
    if (!options.dryRun && options.out === undefined && options.auditPath)
      auditFailure(options.auditPath, participant, environment, error);
    throw error;
  }
}

/** The failure line of an export into the library (core/writes `auditExportFailure`), its secrets masked. */
function auditFailure(auditPath: string, participant: Participant, environment: ExportEnvironment, error: unknown) {
  const message = maskedMessage(describeError(error), knownSecrets(participant.secrets?.(environment)));
  const { agentId, staged } = participant;
  auditExportFailure({ agentId, actor: `participant:${agentId}`, auditPath, stage: staged }, codeOf(error), message);
}

async function exportAndWrite(
  participant: Participant,
  environment: ExportEnvironment,
  options: ExportOptions,
): Promise<ExportReport> {
  const secrets = knownSecrets(participant.secrets?.(environment));
  let exported;
  try {
    exported = await participant.export(environment);
  } catch (error) {
    // A failure's message is shown, returned under --json and audited: never with the token.
    if (secrets.length && error instanceof BourdonError)
      throw new BourdonError(maskedMessage(error.message, secrets), error.code);
    throw error;
  }
  // Whatever the source echoed of a secret it was given is gone before anything is finished,
  // written, printed or counted.
  const result = secrets.length
    ? {
        manifest: valueWithoutSecrets(exported.manifest, secrets),
        sources: valueWithoutSecrets(exported.sources, secrets),
        warnings: exported.warnings.map((warning) => withoutSecrets(warning, secrets)),
      }
    : exported;
  const report: ExportReport = {
    participant: participant.topic,
    agent_id: participant.agentId,
    outcome: 'skipped',
    reason: NO_SOURCE_FOUND,
    sources: result.sources,
    warnings: result.warnings,
    counts: null,
    path: null,
    version: null,
    written: false,
    staged: false,
    kept: null,
    yaml: null,
  };
  if (!result.manifest) return report;
  report.reason = null;
  const finished = finishManifest(result.manifest, options.accessLevel);
  const counts = finished.counts;
  const sized = fitManifest(finished.manifest);
  const { leftOut } = sized;
  if (leftOut.entities + leftOut.sessions > 0) {
    report.warnings = [
      ...report.warnings,
      `the manifest would pass the ${MAX_MANIFEST_BYTES / (1024 * 1024)} MiB limit: the newest rows that fit are kept, ` +
        `${leftOut.entities} entities and ${leftOut.sessions} sessions left out`,
    ];
    counts.entities -= leftOut.entities;
    counts.sessions -= leftOut.sessions;
  }
  // Checked against the L5 model before anything is written (or printed): a value that does not
  // fit is left out at the smallest level (a list item, else the field, else the row), as a read
  // would leave it out, with one warning naming the first; never the whole export for one value.
  // Only a manifest whose agent block does not fit (a bug of ours) is refused whole.
  const fitted = fitWrittenManifest(sized.manifest as RawObject);
  const [misfit] = fitted.misfits;
  if (fitted.manifest === null)
    throw new BourdonError(
      `${participant.agentId}: the export does not fit the L5 model at ${misfit?.field ?? '(the manifest)'}: ${misfit?.reason ?? 'unknown'}; nothing was written`,
      'internal',
    );
  const manifest = fitted.manifest;
  let yaml = sized.yaml;
  if (misfit) {
    const values = fitted.misfits.length === 1 ? 'a value' : `${fitted.misfits.length} values`;
    report.warnings = [
      ...report.warnings,
      `left out ${values} that ${fitted.misfits.length === 1 ? 'does' : 'do'} not fit the L5 model (${misfit.field}: ${misfit.reason})`,
    ];
    const rows = (field: string) => (Array.isArray(manifest[field]) ? manifest[field].length : 0);
    counts.entities = rows('known_entities');
    counts.sessions = rows('recent_sessions');
    yaml = null;
  }
  let data: Buffer;
  try {
    data = serialiseManifest(manifest, yaml ?? undefined);
  } catch (error) {
    // Refused (too large, would not read back): what the source held; anything else is a bug.
    const code = error instanceof SerialiseRefused ? 'source_unreadable' : 'internal';
    throw new BourdonError(`${participant.agentId}: ${describeError(error)}`, code);
  }
  report.counts = counts;
  report.yaml = data.toString('utf8');
  if (options.dryRun) {
    report.outcome = 'dry-run';
    return report;
  }
  report.outcome = 'exported';
  if (options.out !== undefined) {
    const target = path.resolve(environment.cwd, options.out);
    writeFileDurably(target, report.yaml);
    report.path = target;
    report.written = true;
    return report;
  }
  if (!options.library || !options.auditPath) throw new BourdonError('no library to export into', 'usage');
  const written = await writeExport(options.library(), {
    agentId: participant.agentId,
    actor: `participant:${participant.agentId}`,
    manifest,
    bytes: data,
    auditPath: options.auditPath,
    detail: `${plural(counts.entities, 'entity', 'entities')}, ${plural(counts.sessions, 'session')} at ${options.accessLevel}`,
    stage: participant.staged,
  });
  report.path = written.path;
  report.version = written.version;
  report.written = written.written;
  report.staged = written.staged;
  report.kept = written.kept;
  if (!written.written) report.outcome = 'unchanged';
  else if (participant.staged) report.outcome = 'staged';
  return report;
}
