/**
 * Whose publications a pull takes: each machine's key, trusted on first use. The first signed
 * publication this library pulls from a machine names the key it trusts for that machine
 * (`trusted-keys.json` in sync's folder under the config dir); from then on a publication of
 * that machine is taken only when it is signed by that key, its signature verifies, and its
 * folder holds exactly the manifests signed. A deliberate key change (a teammate's new library,
 * a lost key file) is accepted with `bourdon sync trust <machine>` (trustMachine).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { BourdonError, describeError } from '../core/errors.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import { isValidAgentId } from '../core/store/ids.js';
import { isObject } from '../core/store/manifest.js';
import { runGit } from './git.js';
import { classifyPath, MACHINES_DIR, parsePublication, publicationPath, type PublicationRecord } from './layout.js';
import { fingerprint, manifestDigest, signatureVerifies } from './signing.js';
import { ensureWork, fetchRemote, listTree, readBlobs, type TreeEntry } from './work.js';
import { requireRemoteConfig, syncMachineName, syncPaths, withSyncLock, type SyncPaths } from './workspace.js';

export interface TrustedKey {
  public_key: string;
  fingerprint: string;
  trusted_at: string;
  /** How it came to be trusted: the first publication pulled, or `bourdon sync trust`. */
  how: 'first use' | 'sync trust';
}

export type TrustedKeys = Record<string, TrustedKey>;

function trustFile(paths: SyncPaths): string {
  return path.join(paths.dir, 'trusted-keys.json');
}

/** The keys this library trusts, by machine; an unreadable file trusts none (every key is then new). */
export function readTrusted(paths: SyncPaths): TrustedKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(trustFile(paths), 'utf8'));
  } catch {
    return {};
  }
  const out: TrustedKeys = {};
  if (!isObject(parsed)) return out;
  for (const [machine, entry] of Object.entries(parsed)) {
    if (!isValidAgentId(machine) || !isObject(entry) || typeof entry.public_key !== 'string') continue;
    out[machine] = {
      public_key: entry.public_key,
      fingerprint: fingerprint(entry.public_key),
      trusted_at: typeof entry.trusted_at === 'string' ? entry.trusted_at : '',
      how: entry.how === 'sync trust' ? 'sync trust' : 'first use',
    };
  }
  return out;
}

export function writeTrusted(paths: SyncPaths, keys: TrustedKeys): void {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  writeFileDurably(trustFile(paths), JSON.stringify(keys, null, 2) + '\n', 0o600);
}

export type SignatureCheck =
  | { ok: true; publicKey: string; fingerprint: string }
  | { ok: false; state: 'unsigned' | 'mis-signed'; reason: string };

/** Whether a publication record carries a signature that verifies (by the key it names). */
export function checkSignature(record: PublicationRecord): SignatureCheck {
  const machine = record.machine;
  if (record.signature === undefined)
    return {
      ok: false,
      state: 'unsigned',
      reason: `its publication is not signed (a commit by hand, or a push by a bourdon that does not sign): not taken until ${machine} pushes again`,
    };
  if (
    !record.public_key ||
    !record.digests ||
    !record.library_id ||
    !signatureVerifies(
      {
        machine,
        library_id: record.library_id,
        access_level: record.access_level,
        published_at: record.published_at,
        public_key: record.public_key,
        digests: record.digests,
      },
      record.signature,
    )
  )
    return {
      ok: false,
      state: 'mis-signed',
      reason: `its publication's signature does not verify: not what ${machine} signed`,
    };
  return { ok: true, publicKey: record.public_key, fingerprint: fingerprint(record.public_key) };
}

/** The trust verdict on a verified key for a machine: trusted, new (first use) or another key. */
export function keyTrust(
  machine: string,
  key: { publicKey: string; fingerprint: string },
  trusted: TrustedKeys,
): { trust: 'trusted' | 'new' } | { trust: 'other key'; reason: string } {
  const known = trusted[machine];
  if (!known) return { trust: 'new' };
  if (known.public_key === key.publicKey) return { trust: 'trusted' };
  return {
    trust: 'other key',
    reason: `its publication is signed by another key (${key.fingerprint}) than the one trusted for ${machine} (${known.fingerprint}); if ${machine} changed its key, run \`bourdon sync trust ${machine}\``,
  };
}

/**
 * Why a machine's folder is not what it signed, or null: a manifest the signature does not list
 * or whose SHA-256 differs, or one it lists that the folder lacks. `present`: each manifest in
 * the folder with its digest (null when it could not be read).
 */
export function folderMismatch(record: PublicationRecord, present: ReadonlyMap<string, string | null>): string | null {
  const signed = record.digests ?? {};
  const problems: string[] = [];
  for (const [agent, digest] of [...present.entries()].sort()) {
    if (!Object.hasOwn(signed, agent)) problems.push(`agents/${agent}.l5.yaml is not in it`);
    else if (digest !== signed[agent]) problems.push(`agents/${agent}.l5.yaml differs`);
  }
  for (const agent of Object.keys(signed).sort())
    if (!present.has(agent)) problems.push(`agents/${agent}.l5.yaml is missing`);
  if (!problems.length) return null;
  const more = problems.length > 3 ? `, and ${problems.length - 3} more` : '';
  return `its folder does not match what ${record.machine} signed (${problems.slice(0, 3).join(', ')}${more})`;
}

/** How a machine's publication on the remote stands with this library (status, doctor). */
export type KeyState =
  'trusted' | 'new' | 'other key' | 'unsigned' | 'mis-signed' | 'this library' | 'not this library';

/**
 * The key a publication is signed by (its fingerprint, null when it has no valid signature) and
 * how it stands: for another machine, against the key trusted for it; for this machine, against
 * this library's own key (`ownKey`, null when it has none yet).
 */
export function keyState(
  record: PublicationRecord,
  trusted: TrustedKeys,
  mine: boolean,
  ownKey: string | null,
): { key: string | null; signature: KeyState } {
  const signature = checkSignature(record);
  if (!signature.ok) return { key: null, signature: signature.state };
  if (mine)
    return {
      key: signature.fingerprint,
      signature: signature.publicKey === ownKey ? 'this library' : 'not this library',
    };
  return { key: signature.fingerprint, signature: keyTrust(record.machine, signature, trusted).trust };
}

/**
 * Why the remote's publication for this machine is not one this library signed, or null (none
 * there, or this library's own, its folder as signed): unsigned, mis-signed, by another key, or a
 * folder changed since (a teammate's plain commit into it).
 */
export async function ownPublicationProblem(
  paths: SyncPaths,
  machine: string,
  head: string | null,
  ownKey: string | null,
): Promise<string | null> {
  if (!head) return null;
  const entries = await listTree(paths, head, `${MACHINES_DIR}/${machine}/`);
  const recordEntry = entries.find((entry) => entry.path === publicationPath(machine));
  if (!recordEntry) return null;
  const manifests = new Map<string, TreeEntry>();
  for (const entry of entries) {
    const where = classifyPath(entry.path);
    if (where.kind === 'manifest' && entry.type === 'blob') manifests.set(where.agent, entry);
  }
  const blobs = await readBlobs(paths, [recordEntry.blob, ...[...manifests.values()].map((entry) => entry.blob)]);
  let why: string | null;
  try {
    const record = parsePublication(blobs.get(recordEntry.blob) ?? Buffer.alloc(0), machine);
    const signature = checkSignature(record);
    if (!signature.ok) why = signature.state === 'unsigned' ? 'it is not signed' : 'its signature does not verify';
    else if (signature.publicKey !== ownKey) why = `it is signed by another key, ${signature.fingerprint}`;
    else {
      const present = new Map<string, string | null>();
      for (const [agent, entry] of manifests) {
        const bytes = blobs.get(entry.blob);
        present.set(agent, bytes ? manifestDigest(bytes) : null);
      }
      why = folderMismatch(record, present);
    }
  } catch (error) {
    why = describeError(error);
  }
  return why === null
    ? null
    : `the remote holds a publication for ${machine} that this library did not sign (${why}): the machines that trust this library's key refuse it; \`bourdon sync push\` publishes this library's again`;
}

export interface TrustResult {
  machine: string;
  fingerprint: string;
  /** The fingerprint trusted before, or null when none was. */
  previous: string | null;
  changed: boolean;
}

/**
 * `bourdon sync trust <machine>`: trusts the key that signs the machine's publication on the
 * remote now, in place of the one trusted before. The publication must be signed, and its
 * signature verify; the next pull checks its folder as ever.
 */
export async function trustMachine(options: { library: string; env: Env; machine: string }): Promise<TrustResult> {
  const machine = options.machine.trim();
  if (!isValidAgentId(machine))
    throw new BourdonError(`invalid machine ${JSON.stringify(machine)}: it must match ^[a-z0-9][a-z0-9_-]*$`, 'usage');
  const paths = syncPaths(options.library, options.env);
  const config = requireRemoteConfig(paths);
  if (machine === syncMachineName(options.env))
    throw new BourdonError(`${machine} is this machine: its key is this library's own, never pulled`, 'usage');
  return withSyncLock(paths, async () => {
    await ensureWork(paths, config);
    const head = await fetchRemote(paths, config);
    const blob = head
      ? await runGit(['cat-file', 'blob', `${head}:${publicationPath(machine)}`], { cwd: paths.work })
      : null;
    if (!blob || blob.code !== 0)
      throw new BourdonError(`the remote holds no publication of ${machine}: nothing to trust`, 'not_found');
    let record: PublicationRecord;
    try {
      record = parsePublication(blob.stdout, machine);
    } catch (error) {
      throw new BourdonError(
        `${machine}'s publication is not valid (${(error as Error).message}): nothing trusted`,
        'invalid_input',
      );
    }
    const signature = checkSignature(record);
    if (!signature.ok) throw new BourdonError(`${machine}: ${signature.reason}; nothing trusted`, 'invalid_input');
    const trusted = readTrusted(paths);
    const previous = trusted[machine] ?? null;
    const changed = previous?.public_key !== signature.publicKey;
    if (changed) {
      trusted[machine] = {
        public_key: signature.publicKey,
        fingerprint: signature.fingerprint,
        trusted_at: new Date().toISOString(),
        how: 'sync trust',
      };
      writeTrusted(paths, trusted);
    }
    return { machine, fingerprint: signature.fingerprint, previous: previous?.fingerprint ?? null, changed };
  });
}
