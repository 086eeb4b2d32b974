/**
 * How one version's bytes are kept in `history/<id>/`. A version is `vNNNNNN.l5.yaml.gz`:
 * gzip of either the whole manifest, or of a delta — the lines that differ from a full copy of
 * an earlier version kept beside it as `base-NNNNNN.l5.yaml.gz`, and ranges of that copy's lines
 * for the rest. A commit that adds a row to a 315 KB manifest so archives a few KB, not 315 KB.
 * Deltas are always against a base (never a chain), so reading any version reads at most two
 * files. A new base is taken when the delta would carry more than an eighth of the manifest
 * (and more than 8 KiB).
 * Versions archived whole by earlier releases (`vNNNNNN.l5.yaml`) are read as they are.
 *
 * Every archive is decoded again before it is written and compared with the bytes it keeps;
 * anything that would not come back byte for byte is archived whole instead.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Zlib from 'node:zlib';
import { writeDurable, type LibraryFiles } from '../fs/atomic.js';
import { lazy } from '../lazy.js';
import { errnoOf } from '../errors.js';

const require = createRequire(import.meta.url);
/** `node:zlib` (and the streams it loads), on first use: a read command reaches this module but never archives. */
const zlib = lazy(() => require('node:zlib') as typeof Zlib);

const PLAIN = /^v(\d+)\.l5\.yaml$/;
const PACKED = /^v(\d+)\.l5\.yaml\.gz$/;
const BASE = /^base-(\d+)\.l5\.yaml\.gz$/;
/** Starts a decoded delta; a manifest never starts so (YAML text holds no NUL). */
const DELTA_MAGIC = '\u0000bourdon-delta\u0000';
/** A delta carrying more literal bytes than this share of the manifest starts a new base. */
const NEW_BASE_SHARE = 1 / 8;
/** …or more than this, for small manifests, whose deltas are small whatever their share. */
const MIN_DELTA_BYTES = 8192;

const pad = (version: number) => String(version).padStart(6, '0');

/** The name of a version archived by this release. */
export function packedName(version: number): string {
  return `v${pad(version)}.l5.yaml.gz`;
}

export function baseName(version: number): string {
  return `base-${pad(version)}.l5.yaml.gz`;
}

/** The version an archive file name holds, or null for any other file. */
function archivedVersion(name: string): number | null {
  const match = PACKED.exec(name) ?? PLAIN.exec(name);
  return match ? Number(match[1]) : null;
}

/** The version a base file name was taken at, or null. */
function baseVersion(name: string): number | null {
  const match = BASE.exec(name);
  return match ? Number(match[1]) : null;
}

/** A delta: [start, count] copies that many lines of the base; a string is a literal line. */
type DeltaOp = [number, number] | string;

/** Lines as latin1 text (one char per byte), so joining them gives the exact bytes back. */
const linesOf = (data: Buffer) => data.toString('latin1').split('\n');

function encodeDelta(base: Buffer, data: Buffer): { ops: DeltaOp[]; literalBytes: number } {
  const from = linesOf(base);
  const to = linesOf(data);
  const where = new Map<string, number[]>();
  from.forEach((line, index) => {
    const list = where.get(line);
    if (list) list.push(index);
    else where.set(line, [index]);
  });
  const runAt = (j: number, i: number) => {
    let run = 0;
    while (run < 64 && j + run < from.length && i + run < to.length && from[j + run] === to[i + run]) run += 1;
    return run;
  };
  const ops: DeltaOp[] = [];
  let literalBytes = 0;
  let expected = 0; // the base line after the last copy
  for (let i = 0; i < to.length;) {
    const line = to[i]!;
    let start = -1;
    if (expected < from.length && from[expected] === line) start = expected;
    else {
      // Re-align at the occurrence of this line nearest to where the copy left off, on either side.
      const list = where.get(line);
      if (list) {
        let low = 0;
        let high = list.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (list[mid]! < expected) low = mid + 1;
          else high = mid;
        }
        let best = 0;
        for (const candidate of [list[low], list[low - 1]]) {
          if (candidate === undefined) continue;
          const run = runAt(candidate, i);
          if (run > best) [best, start] = [run, candidate];
        }
        if (best < Math.min(3, to.length - i)) start = -1;
      }
    }
    if (start < 0) {
      ops.push(line);
      literalBytes += line.length + 1;
      i += 1;
      continue;
    }
    let count = 0;
    while (start + count < from.length && i < to.length && from[start + count] === to[i]) {
      count += 1;
      i += 1;
    }
    const last = ops[ops.length - 1];
    if (Array.isArray(last) && last[0] + last[1] === start) last[1] += count;
    else ops.push([start, count]);
    expected = start + count;
  }
  return { ops, literalBytes };
}

function applyDelta(base: Buffer, ops: readonly DeltaOp[]): Buffer {
  const from = linesOf(base);
  const out: string[] = [];
  for (const op of ops) {
    if (typeof op === 'string') out.push(op);
    // A line past the base's end joins as empty text, as it always has.
    else for (let k = 0; k < op[1]; k++) out.push(from[op[0] + k] ?? '');
  }
  return Buffer.from(out.join('\n'), 'latin1');
}

function packDelta(baseVersionNumber: number, ops: DeltaOp[]): Buffer {
  return zlib().gzipSync(Buffer.from(`${DELTA_MAGIC}${JSON.stringify({ base: baseVersionNumber, ops })}`, 'latin1'));
}

/** A folder's archive and base files, by version. */
export interface ArchiveListing {
  /** Version → the file holding it (packed preferred over an old plain copy). */
  versions: Map<number, string>;
  /** Base version → its file. */
  bases: Map<number, string>;
}

export function listArchiveNames(dir: string, names: readonly string[]): ArchiveListing {
  const versions = new Map<number, string>();
  const bases = new Map<number, string>();
  for (const name of names) {
    const base = baseVersion(name);
    if (base !== null) bases.set(base, path.join(dir, name));
    const version = archivedVersion(name);
    if (version !== null && (!versions.has(version) || PACKED.test(name))) versions.set(version, path.join(dir, name));
  }
  return { versions, bases };
}

/** An archive whose bytes cannot be decoded (garbled, or its base is gone): not an I/O failure. */
export class ArchiveDamaged extends Error {}

/**
 * The bytes a version's archive file keeps (a delta is applied to its base). Reading the file
 * itself fails as the file system says; a file that does not decode throws ArchiveDamaged.
 */
export function decodeArchive(file: string, files: LibraryFiles): Buffer {
  const raw = files.readFile(file);
  if (!file.endsWith('.gz')) return raw;
  let delta: { base: number; ops: DeltaOp[] } | null = null;
  let inflated: Buffer;
  try {
    inflated = zlib().gunzipSync(raw);
    if (inflated.subarray(0, DELTA_MAGIC.length).equals(Buffer.from(DELTA_MAGIC, 'latin1'))) {
      delta = JSON.parse(inflated.subarray(DELTA_MAGIC.length).toString('latin1')) as { base: number; ops: DeltaOp[] };
    }
  } catch (error) {
    throw new ArchiveDamaged(`cannot decode ${path.basename(file)}: ${(error as Error).message}`);
  }
  if (!delta) return inflated;
  const baseFile = path.join(path.dirname(file), baseName(delta.base));
  let base: Buffer;
  try {
    base = files.readFile(baseFile);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT')
      throw new ArchiveDamaged(`${path.basename(file)} needs ${path.basename(baseFile)}, which is gone`);
    throw error;
  }
  try {
    return applyDelta(zlib().gunzipSync(base), delta.ops);
  } catch (error) {
    throw new ArchiveDamaged(`cannot decode ${path.basename(file)}: ${(error as Error).message}`);
  }
}

/**
 * Archives `data` as `version` in `dir`: a delta against the newest base when that is small,
 * else a new base (written first) and a delta of nothing against it. Durable as writeDurable
 * is; the caller fsyncs the folder.
 */
export function writeArchive(
  dir: string,
  version: number,
  data: Buffer,
  options: { writer: LibraryFiles; mode?: number; listing: ArchiveListing },
): void {
  const { writer, mode } = options;
  const target = path.join(dir, packedName(version));
  const newest = Math.max(-1, ...options.listing.bases.keys());
  if (newest >= 0) {
    let delta: DeltaOp[] | null = null;
    try {
      const base = zlib().gunzipSync(writer.readFile(options.listing.bases.get(newest)!));
      const { ops, literalBytes } = encodeDelta(base, data);
      const small = literalBytes <= Math.max(data.length * NEW_BASE_SHARE, MIN_DELTA_BYTES);
      if (small && applyDelta(base, ops).equals(data)) delta = ops;
    } catch {
      // an unreadable base: take a new one
    }
    if (delta) {
      writeDurable(target, packDelta(newest, delta), { syncDir: false, writer, mode });
      return;
    }
  }
  writeDurable(path.join(dir, baseName(version)), zlib().gzipSync(data), { syncDir: false, writer, mode });
  options.listing.bases.set(version, path.join(dir, baseName(version)));
  writeDurable(target, packDelta(version, [[0, linesOf(data).length]]), { syncDir: false, writer, mode });
}
