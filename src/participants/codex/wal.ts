/**
 * SQLite's write-ahead log applied to a copy of the database bytes. Codex keeps `state_5.sqlite`
 * in WAL mode: while it runs, recent threads live in `state_5.sqlite-wal` until a checkpoint, and
 * a copy of the main file alone does not show them. This reads the log as SQLite's format
 * defines it (https://sqlite.org/fileformat2.html#walformat): frames whose salts match the
 * header and whose running checksum holds, up to the last commit frame, each overwriting its page.
 * Pure: bytes in, bytes out; nothing is opened or written.
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** The running checksum over `data` (a multiple of 8 bytes), from (s0, s1). */
function checksum(data: Uint8Array, bigEndian: boolean, s0: number, s1: number): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let a = s0;
  let b = s1;
  for (let offset = 0; offset + 8 <= data.length; offset += 8) {
    a = (a + view.getUint32(offset, !bigEndian) + b) >>> 0;
    b = (b + view.getUint32(offset + 4, !bigEndian) + a) >>> 0;
  }
  return [a, b];
}

/**
 * The database as a reader would see it with `wal` applied; the input itself when the log is
 * empty, malformed or for another page size. The copy is marked as a rollback-journal database
 * (header bytes 18–19) so an in-memory engine does not look for a log of its own.
 */
export function applyWal(database: Uint8Array, wal: Uint8Array): Uint8Array {
  if (wal.length < WAL_HEADER || database.length < 100) return database;
  const header = new DataView(wal.buffer, wal.byteOffset, WAL_HEADER);
  const magic = header.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return database;
  const bigEndian = magic === 0x377f0683;
  const pageSize = header.getUint32(8);
  const dbPageSize = new DataView(database.buffer, database.byteOffset, 100).getUint16(16);
  if (pageSize !== (dbPageSize === 1 ? 65536 : dbPageSize) || pageSize < 512) return database;
  const salt1 = header.getUint32(16);
  const salt2 = header.getUint32(20);
  let [s0, s1] = checksum(wal.subarray(0, 24), bigEndian, 0, 0);
  if (s0 !== header.getUint32(24) || s1 !== header.getUint32(28)) return database;

  const frames: { pageNumber: number; page: Uint8Array }[] = [];
  let committedFrames = 0;
  let committedSize = 0;
  for (let offset = WAL_HEADER; offset + FRAME_HEADER + pageSize <= wal.length; offset += FRAME_HEADER + pageSize) {
    const frame = new DataView(wal.buffer, wal.byteOffset + offset, FRAME_HEADER);
    if (frame.getUint32(8) !== salt1 || frame.getUint32(12) !== salt2) break;
    const page = wal.subarray(offset + FRAME_HEADER, offset + FRAME_HEADER + pageSize);
    [s0, s1] = checksum(wal.subarray(offset, offset + 8), bigEndian, s0, s1);
    [s0, s1] = checksum(page, bigEndian, s0, s1);
    if (s0 !== frame.getUint32(16) || s1 !== frame.getUint32(20)) break;
    const pageNumber = frame.getUint32(0);
    if (pageNumber === 0) break;
    frames.push({ pageNumber, page });
    const sizeAfterCommit = frame.getUint32(4);
    if (sizeAfterCommit !== 0) {
      committedFrames = frames.length;
      committedSize = sizeAfterCommit;
    }
  }
  if (committedSize === 0) return database;

  const merged = new Uint8Array(committedSize * pageSize);
  merged.set(database.subarray(0, Math.min(database.length, merged.length)));
  // Later frames of a page overwrite earlier ones; frames after the last commit are not visible.
  for (const { pageNumber, page } of frames.slice(0, committedFrames)) {
    if (pageNumber <= committedSize) merged.set(page, (pageNumber - 1) * pageSize);
  }
  merged[18] = 1;
  merged[19] = 1;
  return merged;
}
