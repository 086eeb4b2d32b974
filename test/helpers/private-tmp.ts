/**
 * vitest globalSetup: the whole run gets a temp directory of its own (TMPDIR, inherited by the
 * workers and every process they spawn), and the run fails if anything is left in it at the end —
 * tests remove what they create.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const original = process.env.TMPDIR;
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-vitest-run-'));
  process.env.TMPDIR = runTmp;
  return () => {
    if (original === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = original;
    const left = fs.readdirSync(runTmp);
    fs.rmSync(runTmp, { recursive: true, force: true });
    if (left.length > 0)
      throw new Error(`tests left ${left.length} entries in the temp directory: ${left.slice(0, 20).join(', ')}`);
  };
}
