/**
 * The published tree on the remote, one folder per publishing machine:
 *
 *     machines/<machine>/publication.json      who published, at which level, when, which agents
 *     machines/<machine>/agents/<id>.l5.yaml   its manifests, filtered and redacted
 *
 * `machines/<machine>` is a library the Python engine reads as it is (it reads `agents/`).
 * Everything a pull reads from the remote goes through `classifyPath` first.
 */
import { isValidAgentId } from '../core/store/ids.js';
import { MANIFEST_SUFFIX } from '../core/store/library.js';
import { isObject } from '../core/store/manifest.js';
import { isAccessLevel, type AccessLevel } from '../core/trust/access.js';
import { isSignedShape } from './signing.js';

export const MACHINES_DIR = 'machines';
const PUBLICATION_FILE = 'publication.json';
export const PUBLICATION_FORMAT = 'bourdon-sync/1';

export interface PublicationRecord {
  format: typeof PUBLICATION_FORMAT;
  machine: string;
  access_level: AccessLevel;
  published_at: string;
  agents: string[];
  /** The library that owns the folder (workspace.ts libraryId); absent in folders published before it. */
  library_id?: string;
  /** agent → SHA-256 of its manifest, as signed (signing.ts); absent in unsigned publications. */
  digests?: Record<string, string>;
  /** The publishing library's public key (`ed25519:…`) and its signature over the fields above. */
  public_key?: string;
  signature?: string;
}

export function machineFolder(machine: string): string {
  return `${MACHINES_DIR}/${machine}`;
}

export function manifestPath(machine: string, agent: string): string {
  return `${machineFolder(machine)}/agents/${agent}${MANIFEST_SUFFIX}`;
}

export function publicationPath(machine: string): string {
  return `${machineFolder(machine)}/${PUBLICATION_FILE}`;
}

export type TreePath =
  | { kind: 'manifest'; machine: string; agent: string }
  | { kind: 'publication'; machine: string }
  | { kind: 'refused'; machine: string | null; reason: string };

/** What a path in the remote tree is, or why a pull refuses it. Only called on paths under machines/. */
export function classifyPath(treePath: string): TreePath {
  const parts = treePath.split('/');
  const machine = parts[1] ?? '';
  if (parts[0] !== MACHINES_DIR || !isValidAgentId(machine))
    return { kind: 'refused', machine: null, reason: 'not inside a machine folder with a valid name' };
  if (parts.length === 3 && parts[2] === PUBLICATION_FILE) return { kind: 'publication', machine };
  const file = parts[3];
  if (parts.length === 4 && parts[2] === 'agents' && file?.endsWith(MANIFEST_SUFFIX)) {
    const agent = file.slice(0, -MANIFEST_SUFFIX.length);
    if (isValidAgentId(agent)) return { kind: 'manifest', machine, agent };
    return { kind: 'refused', machine, reason: 'the file name is not a valid agent id' };
  }
  return { kind: 'refused', machine, reason: `outside ${machineFolder(machine)}/agents/` };
}

/** A publication record read from the remote, checked against the folder it sits in. */
export function parsePublication(bytes: Buffer, folderMachine: string): PublicationRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error(`${PUBLICATION_FILE} is not JSON`);
  }
  if (!isObject(parsed)) throw new Error(`${PUBLICATION_FILE} is not an object`);
  if (parsed.machine !== folderMachine)
    throw new Error(`${PUBLICATION_FILE} names machine ${JSON.stringify(parsed.machine)}, not ${folderMachine}`);
  if (!isAccessLevel(parsed.access_level) || parsed.access_level === 'private')
    throw new Error(`${PUBLICATION_FILE} has no valid access_level (public or team)`);
  const agents = Array.isArray(parsed.agents) ? parsed.agents.filter((id): id is string => isValidAgentId(id)) : [];
  const record: PublicationRecord = {
    format: PUBLICATION_FORMAT,
    machine: folderMachine,
    access_level: parsed.access_level,
    published_at: typeof parsed.published_at === 'string' ? parsed.published_at.slice(0, 40) : '',
    agents,
  };
  if (typeof parsed.library_id === 'string' && LIBRARY_ID.test(parsed.library_id))
    record.library_id = parsed.library_id;
  // The signed parts, kept only when every one has its shape (a signature over anything else
  // cannot verify: trust.ts then calls the publication mis-signed, or unsigned without one).
  if (parsed.signature !== undefined) record.signature = '';
  const publishedAt = parsed.published_at;
  if (
    typeof publishedAt === 'string' &&
    PUBLISHED_AT.test(publishedAt) &&
    record.library_id !== undefined &&
    isSignedShape(parsed) &&
    Object.keys(parsed.digests).every((id) => isValidAgentId(id))
  ) {
    record.digests = { ...parsed.digests };
    // The agents are the ones signed (`agents` itself is not signed).
    record.agents = Object.keys(record.digests).sort();
    record.public_key = parsed.public_key;
    record.signature = parsed.signature;
  }
  return record;
}

/** A library id (a UUID) and a publication time as a signed publication carries them. */
const LIBRARY_ID = /^[0-9a-f-]{36}$/;
const PUBLISHED_AT = /^[0-9A-Za-z:.+-]{1,40}$/;
