/**
 * `bourdon doctor`'s report of each participant's native sources: found or not, readable, last
 * modified. Lives beside the commands (core never imports participants): the doctor command
 * appends these checks to core's report.
 */
import fs from 'node:fs';
import type { CheckResult, DoctorReport } from '../core/admin/doctor.js';
import { describeError } from '../core/errors.js';
import { brokenLink } from '../core/native/confined-reads.js';
import { PARTICIPANTS } from '../participants/registry.js';
import { exportEnvironment } from '../participants/runner.js';
import type { SourceStatus } from '../participants/kit/participant.js';

/**
 * What is wrong with a source, if anything: one found that cannot be read (its participant's
 * own reason, else the system's), one not found that is a link that loops or leads to nothing
 * (an export warns about it, so it is not called missing).
 */
function problemOf(source: SourceStatus): string | undefined {
  if (source.found && source.problem) return source.problem;
  // A network source (openclaw's instance URL) is found only when it answered: no file to check.
  if (/^https?:\/\//.test(source.path)) return undefined;
  if (!source.found) return brokenLink(source.path);
  try {
    fs.accessSync(source.path, fs.constants.R_OK);
    return undefined;
  } catch (error) {
    return describeError(error);
  }
}

function sourceLine(source: SourceStatus, problem: string | undefined): string {
  if (!source.found && !problem) return `missing  ${source.name}: ${source.path}`;
  const when = source.modified ? ` (modified ${source.modified.slice(0, 16).replace('T', ' ')} UTC)` : '';
  return problem
    ? `unreadable ${source.name}: ${source.path}: ${problem}`
    : `found    ${source.name}: ${source.path}${when}`;
}

/** The prefix of every participant check's id (`participant:<agent id>`). */
export const PARTICIPANT_CHECK = 'participant:';

/** Source names, each once, in order. */
function names(sources: readonly SourceStatus[]): string {
  return [...new Set(sources.map((source) => source.name))].join(', ');
}

/**
 * One check per registered participant: its sources found or not (the summary, one short
 * line), each with its path and last change (the details, which --json carries).
 */
export async function participantChecks(env: NodeJS.ProcessEnv = process.env): Promise<CheckResult[]> {
  const environment = exportEnvironment({ ...env, SOURCE_DATE_EPOCH: undefined });
  const checks: CheckResult[] = [];
  for (const participant of PARTICIPANTS) {
    const id = `${PARTICIPANT_CHECK}${participant.agentId}`;
    const title = `${participant.agentId} sources`;
    let sources: readonly SourceStatus[];
    try {
      sources = await participant.sources(environment);
    } catch (error) {
      checks.push({ id, title, verdict: 'warn', summary: `could not look: ${describeError(error)}`, details: [] });
      continue;
    }
    const found = sources.filter((source) => source.found);
    const problems = new Map(sources.map((source) => [source, problemOf(source)]));
    const bad = sources.filter((source) => problems.get(source) !== undefined);
    const details = sources.map((source) => sourceLine(source, problems.get(source)));
    if (found.length === 0 && bad.length === 0)
      checks.push({ id, title, verdict: 'info', summary: 'no source on this machine', details });
    else if (bad.length)
      checks.push({ id, title, verdict: 'warn', summary: `found but unreadable: ${names(bad)}`, details });
    else {
      const missing = sources.filter((source) => !source.found);
      const summary = `found: ${names(found)}${missing.length ? `; missing: ${names(missing)}` : ''}`;
      checks.push({ id, title, verdict: 'ok', summary, details });
    }
  }
  return checks;
}

/** Adds checks to a report, keeping its counts and verdict right. */
export function withChecks(report: DoctorReport, checks: readonly CheckResult[]): DoctorReport {
  const counts = { ...report.counts };
  for (const check of checks) counts[check.verdict] += 1;
  return { ...report, ok: counts.fail === 0, counts, checks: [...report.checks, ...checks] };
}
