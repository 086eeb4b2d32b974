/**
 * The CLI export tests' one machine: `bourdon` run in a temporary home, with its own config
 * folder and library, a fixed clock, host name and time zone, so what an export writes is the
 * same on every run.
 */
import { runCli, type CliResult } from './cli.js';

/** The clock the CLI export tests run at: 2026-05-01 12:00 UTC, as SOURCE_DATE_EPOCH. */
export const EXPORT_EPOCH = String(Date.parse('2026-05-01T12:00:00Z') / 1000);

/** Where a CLI export test runs: the user's home (also the working folder), Bourdon's config folder, the library. */
export interface ExportFolders {
  readonly home: string;
  readonly bourdonHome: string;
  readonly library: string;
}

/** `bourdon <args>` run in `folders.home` as one fixed machine (`test-host`, EXPORT_EPOCH, UTC); `env` adds or overrides. */
export function runExportCli(
  folders: ExportFolders,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runCli(args, {
    cwd: folders.home,
    env: {
      HOME: folders.home,
      BOURDON_HOME: folders.bourdonHome,
      BOURDON_LIBRARY: folders.library,
      BOURDON_LOCAL_NAME: 'test-host',
      SOURCE_DATE_EPOCH: EXPORT_EPOCH,
      TZ: 'UTC',
      ...env,
    },
    timeoutMs: 60_000,
  });
}
