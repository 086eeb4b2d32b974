/**
 * What `bourdon watch` follows for each participant, from its declaration in the registry
 * (`Participant.watch`): the paths its sources name, found or not, less those its plan leaves
 * out, each file with its SQLite journals beside it; or nothing, for one that is polled.
 */
import path from 'node:path';
import type { ExportEnvironment, Participant } from '../participants/kit/participant.js';

/** The paths one participant's export reads, as the watcher follows them. */
export interface WatchTarget {
  readonly participant: Participant;
  /** Files and folders (a folder with everything under it); absolute. */
  readonly paths: readonly string[];
  /** The files under a followed folder that count (the plan's `files`); undefined: all. */
  readonly files?: RegExp;
}

/** The journals SQLite keeps beside a database: a write may touch only them. */
const JOURNALS = ['-wal', '-journal'];

/** Whether `inner` is `outer` or lies under it. */
export function isUnder(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);
}

/** The paths `participant` reads that the watcher follows; null when it is polled instead. */
export async function watchTarget(
  participant: Participant,
  environment: ExportEnvironment,
): Promise<WatchTarget | null> {
  const plan = participant.watch;
  if (plan.follow === 'poll') return null;
  const except = new Set(plan.except ?? []);
  const sources = (await participant.sources(environment)).filter(
    (source) => source.path && !except.has(source.name) && path.isAbsolute(source.path),
  );
  const named = [...new Set(sources.map((source) => path.resolve(source.path)))];
  // A path inside another followed one is followed already.
  const outermost = named.filter((one) => !named.some((other) => other !== one && isUnder(one, other)));
  const paths = outermost.flatMap((file) => {
    const looksLikeDatabase = /\.(?:db|sqlite|sqlite3|vscdb)$/.test(file);
    return looksLikeDatabase ? [file, ...JOURNALS.map((suffix) => file + suffix)] : [file];
  });
  return { participant, paths, files: plan.files };
}

/** Which participants a changed path belongs to (a path may be read by more than one). */
export function ownersOf(changed: string, targets: readonly WatchTarget[]): Participant[] {
  return targets
    .filter((target) =>
      target.paths.some((followed) => {
        if (changed === followed) return true;
        if (!isUnder(changed, followed)) return false;
        return target.files ? target.files.test(changed) : true;
      }),
    )
    .map((target) => target.participant);
}
