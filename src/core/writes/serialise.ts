/**
 * A manifest's bytes as a write stores them: serialised (YAML 1.1-safe) and proved to read back
 * as the same data, so a YAML quirk can never silently change what is stored. Serialising is
 * most of a commit's CPU (bench/README.md): on a server a live commit does it on the write
 * thread (write-thread.ts).
 *
 * The proof is one of two (docs/writes.md, "Every manifest is proven to read back"): a text our
 * own emitter wrote whole (store/yaml-emit.ts), every token it wrote plain asked of the manifest
 * reader as it was written (`provenText`), is read back as written by construction; any other
 * text is parsed back whole with the manifest reader and compared with the manifest.
 */
import { MAX_MANIFEST_BYTES } from '../store/manifest-file.js';
import type { RawObject } from '../store/manifest.js';
import { parseYaml } from '../store/yaml.js';
import { provenText, stringifyManifest } from '../store/yaml-proof.js';
import { sameValue } from './merge.js';

/** A manifest that must not be written; the message is the commit's error. */
export class SerialiseRefused extends Error {}

/**
 * Serialises a manifest and checks it reads back as written; refuses what the store would refuse
 * to read. `text` is this manifest's `stringifyManifest` (or `stringifyYamlPiecewise`), when the
 * caller has made it already (an export sizes its manifest first): not made twice; the manifest
 * must not have changed since.
 */
export function serialiseManifest(manifest: RawObject, text: string = stringifyManifest(manifest)): Buffer {
  const data = Buffer.from(text, 'utf8');
  if (data.length > MAX_MANIFEST_BYTES) {
    throw new SerialiseRefused(`the manifest would be ${data.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  }
  if (provenText(manifest, text)) return data;
  let back: unknown;
  try {
    back = parseYaml(text);
  } catch {
    back = undefined;
  }
  if (!sameValue(back, manifest)) {
    throw new SerialiseRefused(
      'the manifest would not read back as written (unsupported values in the input); nothing was written',
    );
  }
  return data;
}
