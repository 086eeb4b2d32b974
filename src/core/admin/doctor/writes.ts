/**
 * Doctor's write-path checks: whether a writer would get the library's write gate (taken and
 * released at once: the only way to know), and the staged writes awaiting an operator.
 */
import { BourdonError, describeError } from '../../errors.js';
import { readOwner, withLibraryGate } from '../../fs/gate.js';
import { MANIFEST_SUFFIX, type LibraryStore } from '../../store/library.js';
import { listStaged } from '../../writes/staging.js';
import { check, plural, type CheckResult } from './check.js';

export async function gateCheck(store: LibraryStore, timeoutMs: number): Promise<CheckResult[]> {
  const { paths } = store;
  const details: string[] = [];
  const owner = readOwner(paths.lock);
  if (owner) details.push(`held before the check by pid ${owner.pid} on ${owner.host} since ${owner.acquired}`);
  const recovered: string[] = [];
  try {
    await withLibraryGate(paths, () => undefined, { timeoutMs, warn: (message) => recovered.push(message) });
  } catch (error) {
    const message = describeError(error);
    const busy = error instanceof BourdonError && error.code === 'busy';
    return [check('gate', 'write gate', busy ? 'warn' : 'fail', busy ? `busy: ${message}` : message, details)];
  }
  if (recovered.length)
    return [
      check('gate', 'write gate', 'warn', 'a lock left by a dead writer was found and removed', [
        ...details,
        ...recovered,
      ]),
    ];
  return [check('gate', 'write gate', 'ok', `writers can take ${paths.lock}`, details)];
}

export function stagingCheck(store: LibraryStore, now: Date, staleDays: number): CheckResult {
  const staged = listStaged(store, now);
  if (staged.length === 0) return check('staging', 'staging', 'ok', 'nothing awaiting review');
  const unreadable = staged.filter((item) => item.error);
  const stale = staged.filter((item) => !item.error && item.age_days > staleDays);
  const details = [
    ...unreadable.map(
      (item) =>
        `staging/${item.caller}/${item.agent_id}${MANIFEST_SUFFIX}: ${item.error} — \`bourdon staging reject ${item.agent_id}\``,
    ),
    ...stale.map(
      (item) =>
        `staging/${item.caller}/${item.agent_id}${MANIFEST_SUFFIX}: staged by ${item.caller} ${Math.floor(item.age_days)} days ago — \`bourdon staging promote ${item.agent_id}\` or \`reject\``,
    ),
  ];
  if (unreadable.length || stale.length) {
    const parts = [
      stale.length ? `${plural(stale.length, 'staged write')} older than ${staleDays} days` : '',
      unreadable.length ? `${plural(unreadable.length, 'unreadable staged file')}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return check('staging', 'staging', 'fail', parts, details);
  }
  return check(
    'staging',
    'staging',
    'info',
    `${plural(staged.length, 'staged write')} awaiting review (\`bourdon staging list\`)`,
  );
}
