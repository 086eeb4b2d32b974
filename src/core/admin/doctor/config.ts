/**
 * Doctor's checks of the config dir's files: the folder's mode, the parsed cache's owners, and
 * whether the audit log can be appended to (checked with access(2): no record is written).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeError, errnoOf } from '../../errors.js';
import { trustedCacheStat } from '../../store/cache-files.js';
import { check, plural, type CheckResult } from './check.js';

export function configDirCheck(home: string): CheckResult {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(home);
  } catch {
    return check(
      'config',
      'config dir',
      'info',
      `${home} does not exist yet (\`bourdon init\` creates it; nothing needs it until members, peers or audit)`,
    );
  }
  if (!stat.isDirectory()) return check('config', 'config dir', 'fail', `${home} is not a folder`);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    return check(
      'config',
      'config dir',
      'warn',
      `${home} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}); \`chmod 700 ${home}\``,
    );
  }
  return check('config', 'config dir', 'ok', home);
}

/**
 * The parsed-library cache: every folder and file in it must be this user's and writable by no
 * one else. Queries already ignore any that is not (a miss, rebuilt from the manifest); doctor
 * fails so that someone looks at who could write there.
 */
export function cacheCheck(dir: string): CheckResult {
  if (!fs.existsSync(dir)) return check('cache', 'parsed cache', 'ok', 'none yet');
  const untrusted: string[] = [];
  const walk = (at: string, depth: number) => {
    const stat = fs.lstatSync(at);
    if (!trustedCacheStat(stat)) untrusted.push(at);
    if (stat.isDirectory() && depth < 3) for (const name of fs.readdirSync(at)) walk(path.join(at, name), depth + 1);
  };
  walk(dir, 0);
  if (untrusted.length === 0) return check('cache', 'parsed cache', 'ok', dir);
  return check(
    'cache',
    'parsed cache',
    'fail',
    `${plural(untrusted.length, 'cache file')} not owned by you or writable by others (ignored by queries); remove ${dir} and check who can write to the config dir`,
    untrusted.slice(0, 10),
  );
}

/** Whether the audit log can be appended to (or created), without writing a record. */
export function auditCheck(file: string): CheckResult {
  if (fs.existsSync(file)) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch (error) {
      return check(
        'audit',
        'audit log',
        'fail',
        `${file} is not writable (${errnoOf(error) ?? describeError(error)})`,
        ['calls are still answered, but rollbacks are refused until it is'],
      );
    }
    return check('audit', 'audit log', 'ok', `${file} is writable`);
  }
  // Not there yet: the nearest existing folder must let the writer create it.
  let dir = path.dirname(path.resolve(file));
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    return check(
      'audit',
      'audit log',
      'fail',
      `${file} cannot be created (${errnoOf(error) ?? describeError(error)} on ${dir})`,
      ['calls are still answered, but rollbacks are refused until it can'],
    );
  }
  return check('audit', 'audit log', 'ok', `${file} will be created on the first call`);
}
