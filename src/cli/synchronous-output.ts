/**
 * Writes a one-shot command's whole answer to standard output or error with `fs.writeSync`,
 * not through `process.stdout`/`process.stderr`: the first touch of either builds its stream (a
 * pipe's loads `net` and the stream machinery), about as much as the rest of a
 * `bourdon agents --json` call after Node's own start (bench/README.md). The text is
 * complete before it is written, so a stream buys nothing here.
 *
 * A reader that went away (EPIPE: `bourdon … --json | head -1`) ends the writing quietly, as
 * a shell tool does. A descriptor left non-blocking by whoever opened it (EAGAIN) hands the rest
 * to the stream, which waits for the reader.
 */
import fs from 'node:fs';
import { errnoOf } from '../core/errors.js';

export function writeWhole(fd: 1 | 2, text: string): void {
  const data = Buffer.from(text, 'utf8');
  let offset = 0;
  try {
    while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw error;
    (fd === 1 ? process.stdout : process.stderr).write(data.subarray(offset));
  }
}
