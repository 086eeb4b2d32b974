/**
 * The real-folder rule of the library: a folder Bourdon writes in or removes from inside the
 * library (history, pulled copies) must be a folder of its own, never a symbolic link — a link
 * would put what is written, or what a clean-up removes, outside the library. The library root
 * itself may be a link (a library kept in a synced drive); what is below it may not.
 */
import fs from 'node:fs';
import { BourdonError, errnoOf } from '../errors.js';

/** Refuses a folder that is a symbolic link or not a folder; a missing one passes (it is made later). */
export function refuseLink(dir: string): void {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  } catch (error) {
    if (errnoOf(error) === 'ENOTDIR') return;
    throw error;
  }
  if (!stat) return;
  if (stat.isSymbolicLink())
    throw new BourdonError(`refusing to write through the symbolic link ${dir}`, 'invalid_input');
  if (!stat.isDirectory()) throw new BourdonError(`${dir} is not a folder`, 'invalid_input');
}

/** A folder to write in, made when missing (its parents checked first by the caller); refused as refuseLink does. */
export function realFolder(dir: string): void {
  refuseLink(dir);
  fs.mkdirSync(dir, { recursive: true });
  refuseLink(dir);
}
