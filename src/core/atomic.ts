/**
 * Durable small-file writes shared by the registry, peers and staging: a temp file in the same
 * folder, fsync, rename over the target. A crash leaves the old file or the new one, never a
 * torn one.
 */
import fs from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export function writeFileDurably(target: string, data: string, mode = 0o644): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  writeFileAtomic.sync(target, data, { fsync: true, mode });
}
