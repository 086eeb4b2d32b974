/**
 * `bourdon doctor`: runs every check a server depends on, one area per file in doctor/ (the
 * library and its manifests, the write gate and staging, the config dir's files, members,
 * peers), and counts the verdicts (doctor/check.ts). The command exits 1 when any check fails.
 *
 * Nothing here changes the library or the config, with one exception: the write-gate check
 * takes the gate and releases it at once (a lock folder created and removed), which is the only
 * way to know a writer would get it. No audit record is written (it would pollute the trail):
 * writability is checked with access(2).
 */
import path from 'node:path';
import type { ConfigPaths, Env } from '../store/config.js';
import { describeError } from '../errors.js';
import { LibraryStore } from '../store/library.js';
import type { PeerConfig } from '../federation/peers-config.js';
import { check, type CheckResult, type Verdict } from './doctor/check.js';
import { auditCheck, cacheCheck, configDirCheck } from './doctor/config.js';
import { libraryExists, manifestChecks } from './doctor/library.js';
import { registryChecks } from './doctor/members.js';
import { peersChecks, type PeerProbe } from './doctor/peers.js';
import { gateCheck, stagingCheck } from './doctor/writes.js';

export type { CheckResult, Verdict };

export interface DoctorReport {
  ok: boolean;
  library: string;
  config_dir: string;
  counts: Record<Verdict, number>;
  checks: CheckResult[];
}

interface DoctorOptions {
  libraryRoot: string;
  config: ConfigPaths;
  env: Env;
  now?: Date;
  /** Staged writes older than this many days fail the staging check. */
  staleDays?: number;
  /** Calls a peer; absent means reachability is not checked (--offline). */
  probePeer?: (peer: PeerConfig) => Promise<PeerProbe>;
  gateTimeoutMs?: number;
}

export const DEFAULT_STALE_DAYS = 7;

/** Runs every check. Never throws: a check that cannot run reports why as its verdict. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const now = options.now ?? new Date();
  const root = path.resolve(options.libraryRoot);
  const checks: CheckResult[] = [];
  const guarded = async (id: string, title: string, fn: () => CheckResult[] | Promise<CheckResult[]>) => {
    try {
      checks.push(...(await fn()));
    } catch (error) {
      checks.push(check(id, title, 'fail', `could not be checked: ${describeError(error)}`));
    }
  };

  const libraryOk = libraryExists(root, checks);
  if (libraryOk) {
    const store = new LibraryStore(root, { warn: () => {}, keepDocuments: true });
    await guarded('manifests', 'manifests', () => manifestChecks(store));
    await guarded('gate', 'write gate', () => gateCheck(store, options.gateTimeoutMs ?? 1_500));
    await guarded('staging', 'staging', () => [stagingCheck(store, now, options.staleDays ?? DEFAULT_STALE_DAYS)]);
  }
  await guarded('config', 'config dir', () => [configDirCheck(options.config.home)]);
  await guarded('cache', 'parsed cache', () => [cacheCheck(path.join(options.config.home, 'cache'))]);
  await guarded('registry', 'registry', () => registryChecks(options.config.registry, options.env));
  await guarded('peers', 'peers', () => peersChecks(options.config.peers, options.env, options.probePeer));
  await guarded('audit', 'audit log', () => [auditCheck(options.config.audit)]);

  const counts: Record<Verdict, number> = { ok: 0, info: 0, warn: 0, fail: 0 };
  for (const result of checks) counts[result.verdict]++;
  return { ok: counts.fail === 0, library: root, config_dir: path.resolve(options.config.home), counts, checks };
}
