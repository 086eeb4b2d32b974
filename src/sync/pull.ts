/**
 * `bourdon sync pull`: every other machine's publication, from the remote into
 * `<library>/pulled/<machine>/` (read by the store: store/pulled.ts). Each remote file is
 * checked on its own before anything is written — a regular file, within the size limit,
 * inside its machine's `agents/` folder, a manifest that parses and declares the agent its
 * name says; a machine whose publication record is missing, invalid or names another machine is
 * refused whole. A refused file leaves the copy pulled before (if any) in place; the rest
 * applies. `agents/` is never written, nor this machine's own folder on the remote read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../core/context.js';
import { BourdonError, describeError } from '../core/errors.js';
import { isValidAgentId } from '../core/store/ids.js';
import { MANIFEST_SUFFIX, MAX_MANIFEST_BYTES, parseManifest } from '../core/store/library.js';
import { isObject } from '../core/store/manifest.js';
import { MAX_PUBLICATION_BYTES, MAX_PULLED_BYTES, PULLED_DIR, PULLED_MARK } from '../core/store/pulled.js';
import { isAccessLevel, lowerLevel, type AccessLevel } from '../core/trust/access.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import { realFolder, refuseLink } from '../core/fs/real-folder.js';
import { classifyPath, MACHINES_DIR, parsePublication, type PublicationRecord } from './layout.js';
import {
  ensureWork,
  fetchRemote,
  historyRewritten,
  listTree,
  readBlobs,
  rewriteError,
  type TreeEntry,
} from './work.js';
import { readState, requireRemoteConfig, syncMachineName, syncPaths, withSyncLock, writeState } from './workspace.js';
import { manifestDigest } from './signing.js';
import { checkSignature, folderMismatch, keyTrust, readTrusted, writeTrusted, type TrustedKeys } from './trust.js';

export interface PullOptions {
  library: string;
  env: Env;
  acceptRewrite?: boolean;
  warn?: (message: string) => void;
  /** Called as manifests are checked (done of total). */
  progress?: (done: number, total: number) => void;
  now?: () => Date;
}

export interface Refusal {
  path: string;
  reason: string;
}

export interface MachinePull {
  machine: string;
  /** The fingerprint of the key its publication is signed by (trust.ts). */
  key: string;
  /** True when this pull trusted that key for the first time (trust on first use). */
  first_use: boolean;
  access_level: AccessLevel | null;
  published_at: string | null;
  agents: number;
  added: string[];
  updated: string[];
  removed: string[];
}

export interface PullResult {
  machine: string;
  commit: string | null;
  machines: MachinePull[];
  /** Machines whose pulled copy was removed because they no longer publish. */
  gone: string[];
  refused: Refusal[];
}

/** The mark a pull leaves in each machine's pulled folder (store/pulled.ts reads machine and level). */
interface PulledMarkFile {
  machine: string;
  access_level: AccessLevel;
  published_at: string;
  commit: string;
  pulled_at: string;
  /** agent → the remote blob its pulled copy was written from. */
  files: Record<string, string>;
  /** agent → the SHA-256 of that blob, checked against the publication's signature. */
  digests: Record<string, string>;
}

function readMark(dir: string, machine: string): PulledMarkFile | null {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(dir, PULLED_MARK), 'utf8'));
    if (!isObject(parsed) || parsed.machine !== machine || !isAccessLevel(parsed.access_level)) return null;
    const files = isObject(parsed.files) ? parsed.files : {};
    const digests = isObject(parsed.digests) ? parsed.digests : {};
    return {
      machine,
      access_level: parsed.access_level,
      published_at: typeof parsed.published_at === 'string' ? parsed.published_at : '',
      commit: typeof parsed.commit === 'string' ? parsed.commit : '',
      pulled_at: typeof parsed.pulled_at === 'string' ? parsed.pulled_at : '',
      files: Object.fromEntries(Object.entries(files).filter(([, blob]) => typeof blob === 'string')) as Record<
        string,
        string
      >,
      digests: Object.fromEntries(
        Object.entries(digests).filter(([, digest]) => typeof digest === 'string' && /^[0-9a-f]{64}$/.test(digest)),
      ) as Record<string, string>,
    };
  } catch {
    return null;
  }
}

function writeMark(dir: string, mark: PulledMarkFile): void {
  writeFresh(path.join(dir, PULLED_MARK), JSON.stringify(mark, null, 2) + '\n');
}

/**
 * Writes a file in a pulled folder durably, in place of whatever is there: a link (or a folder)
 * at its name is removed first, never written through — the durable writer follows a link
 * to its target, which may be anywhere.
 */
function writeFresh(file: string, text: string): void {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) fs.rmSync(file, { recursive: true, force: true });
  writeFileDurably(file, text, 0o644);
}

interface MachineTree {
  publication: TreeEntry | null;
  manifests: Map<string, TreeEntry>;
}

const REGULAR_FILE_MODES = new Set(['100644', '100755']);

/** Groups the remote tree by machine, refusing every entry that is not a file a pull may take. */
function groupTree(entries: readonly TreeEntry[], own: string, refused: Refusal[]): Map<string, MachineTree> {
  const machines = new Map<string, MachineTree>();
  for (const entry of entries) {
    const where = classifyPath(entry.path);
    if (where.machine === own) continue;
    if (where.kind === 'refused') {
      refused.push({ path: entry.path, reason: where.reason });
      continue;
    }
    if (entry.type !== 'blob' || !REGULAR_FILE_MODES.has(entry.mode)) {
      refused.push({ path: entry.path, reason: 'not a regular file (a link or a submodule)' });
      continue;
    }
    let tree = machines.get(where.machine);
    if (!tree) machines.set(where.machine, (tree = { publication: null, manifests: new Map() }));
    if (entry.size > MAX_MANIFEST_BYTES) {
      refused.push({ path: entry.path, reason: `${entry.size} bytes; the limit is ${MAX_MANIFEST_BYTES}` });
      continue;
    }
    if (where.kind === 'publication') tree.publication = entry;
    else tree.manifests.set(where.agent, entry);
  }
  return machines;
}

export async function pullLibrary(options: PullOptions): Promise<PullResult> {
  const paths = syncPaths(options.library, options.env);
  const config = requireRemoteConfig(paths);
  const own = syncMachineName(options.env);
  const now = options.now ?? (() => new Date());
  return withSyncLock(paths, async () => {
    await ensureWork(paths, config);
    const state = readState(paths);
    if (options.acceptRewrite) state.known_head = null;
    const head = await fetchRemote(paths, config);
    if (await historyRewritten(paths, state, head)) throw rewriteError(state, head);
    const result: PullResult = { machine: own, commit: head, machines: [], gone: [], refused: [] };
    const pulledRoot = path.join(paths.library, PULLED_DIR);
    // The real-folder rule (core/fs/real-folder.ts) before anything is read, written or removed:
    // a `pulled` that is a link would have the clean-up below empty whatever it points at.
    try {
      refuseLink(pulledRoot);
    } catch (error) {
      throw new BourdonError(
        `${describeError(error)}: sync writes only in a real folder there; nothing was pulled (move the link away and pull again)`,
        'invalid_input',
      );
    }
    const trees = head ? groupTree(await listTree(paths, head, MACHINES_DIR), own, result.refused) : new Map();

    // Read only what changed since the copies pulled before.
    const previous = new Map<string, PulledMarkFile | null>();
    const wanted: string[] = [];
    for (const [machine, tree] of trees) {
      const mark = readMark(path.join(pulledRoot, machine), machine);
      previous.set(machine, mark);
      if (tree.publication) wanted.push(tree.publication.blob);
      // A manifest pulled before is read again only when it changed (or its digest is not known).
      for (const [agent, entry] of tree.manifests)
        if (mark?.files[agent] !== entry.blob || !mark?.digests[agent]) wanted.push(entry.blob);
    }
    const blobs = await readBlobs(paths, [...new Set(wanted)]);
    const trusted = readTrusted(paths);
    let trustChanged = false;
    let keptBytes = 0;
    const total = [...trees.values()].reduce((sum, tree) => sum + tree.manifests.size, 0);
    let done = 0;
    const overTotal = new Set<string>();

    for (const [machine, tree] of [...trees.entries()].sort()) {
      const dir = path.join(pulledRoot, machine);
      let publication: PublicationRecord;
      let signedBy: { publicKey: string; fingerprint: string; firstUse: boolean };
      const mark = previous.get(machine) ?? null;
      const digestOf = (agent: string, entry: TreeEntry): string | null => {
        if (mark?.files[agent] === entry.blob && mark.digests[agent]) return mark.digests[agent];
        const bytes = blobs.get(entry.blob);
        return bytes ? manifestDigest(bytes) : null;
      };
      const size = [...tree.manifests.values()].reduce((sum, entry) => sum + entry.size, 0);
      try {
        // A machine's folder (or its agents folder) that is a link is neither read nor written.
        refuseLink(dir);
        refuseLink(path.join(dir, 'agents'));
        if (!tree.publication) throw new Error('no publication.json');
        publication = parsePublication(blobs.get(tree.publication.blob) ?? Buffer.alloc(0), machine);
        signedBy = acceptSigned(publication, trusted, tree, digestOf);
        if (size > MAX_PUBLICATION_BYTES)
          throw new Error(
            `its manifests are ${mebibytes(size)}, over the ${mebibytes(MAX_PUBLICATION_BYTES)} one machine may publish`,
          );
      } catch (error) {
        const reason = `machine ${machine} refused: ${describeError(error)}`;
        result.refused.push({ path: `${MACHINES_DIR}/${machine}/`, reason });
        done += tree.manifests.size;
        continue;
      }
      if (keptBytes + size > MAX_PULLED_BYTES) {
        // Past the total a pull keeps: not taken, and the copy pulled before goes too.
        const reason = `machine ${machine} refused: a pull keeps at most ${mebibytes(MAX_PULLED_BYTES)} of other machines' manifests in all, and its ${mebibytes(size)} would take it to ${mebibytes(keptBytes + size)}; its pulled copy was removed`;
        result.refused.push({ path: `${MACHINES_DIR}/${machine}/`, reason });
        overTotal.add(machine);
        done += tree.manifests.size;
        continue;
      }
      keptBytes += size;
      if (signedBy.firstUse) {
        trusted[machine] = {
          public_key: signedBy.publicKey,
          fingerprint: signedBy.fingerprint,
          trusted_at: now().toISOString(),
          how: 'first use',
        };
        trustChanged = true;
      }
      const report: MachinePull = {
        machine,
        key: signedBy.fingerprint,
        first_use: signedBy.firstUse,
        access_level: publication.access_level,
        published_at: publication.published_at || null,
        agents: 0,
        added: [],
        updated: [],
        removed: [],
      };
      const toWrite: [string, Buffer, string][] = [];
      const files: Record<string, string> = {};
      const digests: Record<string, string> = {};
      for (const [agent, entry] of [...tree.manifests.entries()].sort()) {
        options.progress?.(++done, total);
        const file = `${agent}${MANIFEST_SUFFIX}`;
        const target = path.join(dir, 'agents', file);
        if (mark?.files[agent] === entry.blob && fs.existsSync(target)) {
          files[agent] = entry.blob;
          // acceptSigned checked every manifest against the publication's digests.
          digests[agent] = publication.digests![agent]!;
          continue;
        }
        try {
          const bytes = blobs.get(entry.blob);
          if (!bytes) throw new Error('missing from the fetched history');
          const record = parseManifest(bytes, file, target);
          if (record.id !== agent) throw new Error(`it declares agent id ${JSON.stringify(record.id)}, not ${agent}`);
          toWrite.push([agent, bytes, entry.blob]);
          files[agent] = entry.blob;
          digests[agent] = publication.digests![agent]!;
        } catch (error) {
          result.refused.push({ path: entry.path, reason: describeError(error).split('\n')[0]! });
          // The copy pulled before stays, as it was.
          if (mark?.files[agent] && fs.existsSync(target)) {
            files[agent] = mark.files[agent];
            if (mark.digests[agent]) digests[agent] = mark.digests[agent];
          }
        }
      }
      realFolder(pulledRoot);
      realFolder(dir);
      realFolder(path.join(dir, 'agents'));
      const base = { machine, published_at: publication.published_at, commit: head!, pulled_at: now().toISOString() };
      // The lower level first: while files change, no row is served above either publication's level.
      if (mark && mark.access_level !== publication.access_level)
        writeMark(dir, { ...mark, access_level: lowerLevel(mark.access_level, publication.access_level) });
      for (const [agent, bytes] of toWrite) {
        writeFresh(path.join(dir, 'agents', `${agent}${MANIFEST_SUFFIX}`), bytes.toString('utf8'));
        (mark?.files[agent] ? report.updated : report.added).push(agent);
      }
      for (const name of fs.readdirSync(path.join(dir, 'agents'))) {
        const agent = name.endsWith(MANIFEST_SUFFIX) ? name.slice(0, -MANIFEST_SUFFIX.length) : null;
        if (agent !== null && isValidAgentId(agent) && files[agent]) continue;
        fs.rmSync(path.join(dir, 'agents', name), { recursive: true, force: true });
        if (agent !== null && isValidAgentId(agent)) report.removed.push(agent);
      }
      writeMark(dir, { ...base, access_level: publication.access_level, files, digests });
      report.agents = Object.keys(files).length;
      result.machines.push(report);
    }

    // Machines that no longer publish: their pulled copies go (this machine's never existed here).
    // A link among them is removed itself (rmSync does not follow it), never emptied.
    let present: string[];
    try {
      refuseLink(pulledRoot);
      present = fs.readdirSync(pulledRoot);
    } catch {
      present = [];
    }
    for (const name of present) {
      if ((trees.has(name) && !overTotal.has(name)) || name === own) continue;
      if (!overTotal.has(name) && result.refused.some((refusal) => refusal.path === `${MACHINES_DIR}/${name}/`))
        continue;
      fs.rmSync(path.join(pulledRoot, name), { recursive: true, force: true });
      if (!overTotal.has(name)) result.gone.push(name);
    }
    if (trustChanged) writeTrusted(paths, trusted);
    const at = now().toISOString();
    writeState(paths, { ...state, known_head: head ?? state.known_head, last_pulled: head, last_pulled_at: at });
    return result;
  });
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
}

/**
 * The key a machine's publication is taken under, or why it is not (thrown, one line): the
 * publication must be signed, its signature verify, the key be the one trusted for the machine
 * (or the first seen), and the folder hold exactly the manifests it signed (trust.ts).
 */
function acceptSigned(
  publication: PublicationRecord,
  trusted: TrustedKeys,
  tree: MachineTree,
  digestOf: (agent: string, entry: TreeEntry) => string | null,
): { publicKey: string; fingerprint: string; firstUse: boolean } {
  const signature = checkSignature(publication);
  if (!signature.ok) throw new Error(signature.reason);
  const trust = keyTrust(publication.machine, signature, trusted);
  if (trust.trust === 'other key') throw new Error(trust.reason);
  const present = new Map<string, string | null>();
  for (const [agent, entry] of tree.manifests) present.set(agent, digestOf(agent, entry));
  const mismatch = folderMismatch(publication, present);
  if (mismatch) throw new Error(mismatch);
  return { publicKey: signature.publicKey, fingerprint: signature.fingerprint, firstUse: trust.trust === 'new' };
}
