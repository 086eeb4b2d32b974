/**
 * Reads a SQLite write-ahead log the way a reader sees it: every page of every valid frame up to
 * the last commit, which replace the database's pages (sqlite-snapshot.ts writes them into the
 * private copy it reads). Agents that keep their database in WAL mode (copilot-cli) hold their
 * newest sessions in the log until a checkpoint.
 * Format: https://www.sqlite.org/fileformat2.html#the_write_ahead_log
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** The log's running checksum over `bytes` (a multiple of 8 long), from `seed`. */
function checksum(bytes: Buffer, bigEndian: boolean, seed: [number, number]): [number, number] {
  let [s0, s1] = seed;
  for (let i = 0; i + 8 <= bytes.length; i += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    const x1 = bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** What a log's committed frames make of the database: its size in pages and the pages they replace. */
export interface WalCommit {
  readonly pageSize: number;
  /** The database's size, in pages, after the last commit. */
  readonly pages: number;
  /** The newest committed content of each page the log holds (numbered from 1). */
  readonly frames: ReadonlyMap<number, Buffer>;
}

/**
 * The log's last valid commit, or undefined when it has none: a log that is empty, foreign or
 * for another page size leaves the database as it is (SQLite ignores such a log too).
 */
export function walCommit(wal: Buffer): WalCommit | undefined {
  if (wal.length < WAL_HEADER_BYTES) return undefined;
  const magic = wal.readUInt32BE(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return undefined;
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const pageSize = wal.readUInt32BE(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  let sum = checksum(wal.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return undefined;
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);

  const committed = new Map<number, Buffer>();
  const pending = new Map<number, Buffer>();
  let committedPages = 0;
  for (
    let at = WAL_HEADER_BYTES;
    at + FRAME_HEADER_BYTES + pageSize <= wal.length;
    at += FRAME_HEADER_BYTES + pageSize
  ) {
    const page = wal.readUInt32BE(at);
    const pagesAfterCommit = wal.readUInt32BE(at + 4);
    if (page === 0 || wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    const content = wal.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + pageSize);
    sum = checksum(wal.subarray(at, at + 8), bigEndian, sum);
    sum = checksum(content, bigEndian, sum);
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break;
    pending.set(page, content);
    if (pagesAfterCommit !== 0) {
      for (const [number, bytes] of pending) committed.set(number, bytes);
      pending.clear();
      committedPages = pagesAfterCommit;
    }
  }
  return committedPages === 0 ? undefined : { pageSize, pages: committedPages, frames: committed };
}
