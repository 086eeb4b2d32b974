/**
 * The parsed cache's files as its readers read them (parsed-cache.ts, lookup.ts): only files and
 * folders this user owns and no one else can write, a whole JSON file or a byte range of one;
 * anything absent, short, corrupt or untrusted reads as a miss.
 */
import fs from 'node:fs';

/**
 * Whether a cache file or folder can be trusted: owned by this user and writable by no one
 * else. Another local user who can write into a group- or world-writable config dir could
 * otherwise plant an entry, and the CLI would serve rows that are in no manifest. An entry
 * that fails this is a miss (rebuilt from the manifest); `doctor` reports it.
 */
export function trustedCacheStat(stat: fs.Stats): boolean {
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  return (uid === null || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

export function trustedPath(file: string): boolean {
  try {
    return trustedCacheStat(fs.lstatSync(file));
  } catch {
    return false;
  }
}

/**
 * The JSON in bytes [start, end) of a file (or, `raw`, the text); undefined when absent, short,
 * corrupt or untrusted (a miss).
 */
export function readJsonRange(file: string, start: number, end: number, raw = false): unknown {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    const stat = fs.fstatSync(fd);
    if (!trustedCacheStat(stat)) return undefined;
    if (stat.size < end) return undefined; // not the file meta.json describes
    const bytes = Buffer.alloc(end - start);
    if (fs.readSync(fd, bytes, 0, bytes.length, start) !== bytes.length) return undefined;
    return raw ? bytes.toString('utf8') : JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** A whole JSON file; undefined when absent, corrupt or untrusted (a miss). */
export function readJson(file: string): unknown {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r');
    // Checked on the open file, so a swap after the check cannot be read.
    if (!trustedCacheStat(fs.fstatSync(fd))) return undefined;
    return JSON.parse(fs.readFileSync(fd, 'utf8'));
  } catch {
    return undefined; // absent, unreadable or corrupt: a miss
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}
