/**
 * First-run setup (`bourdon init`): the library and config folders, a first member, a first
 * peer. Every step is idempotent: it reports what it found when there is nothing to do, and
 * never overwrites or re-issues anything (a member's token is shown only when it is created).
 */
import fs from 'node:fs';
import path from 'node:path';
import { BourdonError, errnoOf } from '../errors.js';
import { libraryPaths } from '../store/library.js';
import {
  checkPeerName,
  checkPeerTokenEnv,
  editPeersFile,
  normalisePeerUrl,
  readPeersForEdit,
  type PeerConfig,
} from '../federation/peers-config.js';
import { FederationRegistry, type IssuedToken } from '../trust/registry.js';

type StepStatus = 'created' | 'exists' | 'added';

export interface SetupStep {
  what: 'library' | 'config' | 'member' | 'peer';
  status: StepStatus;
  path: string;
  detail: string;
}

/** Creates the library root and its agents/ folder. */
export function ensureLibraryFolders(root: string): SetupStep {
  const paths = libraryPaths(root);
  if (fs.existsSync(paths.root) && !fs.statSync(paths.root).isDirectory())
    throw new BourdonError(`library is not a folder: ${paths.root}`, 'invalid_input');
  const existed = fs.existsSync(paths.agents);
  try {
    fs.mkdirSync(paths.agents, { recursive: true });
  } catch (error) {
    throw new BourdonError(`cannot create library ${paths.root}: ${errnoOf(error) ?? 'error'}`, 'unavailable');
  }
  return {
    what: 'library',
    status: existed ? 'exists' : 'created',
    path: paths.root,
    detail: existed ? 'library already there' : 'library created (agents/ is where manifests go)',
  };
}

/** Creates the config dir, private to the user. */
export function ensureConfigDir(home: string): SetupStep {
  const resolved = path.resolve(home);
  if (fs.existsSync(resolved)) {
    if (!fs.statSync(resolved).isDirectory())
      throw new BourdonError(`config dir is not a folder: ${resolved}`, 'invalid_input');
    return { what: 'config', status: 'exists', path: resolved, detail: 'config dir already there' };
  }
  try {
    fs.mkdirSync(resolved, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new BourdonError(`cannot create config dir ${resolved}: ${errnoOf(error) ?? 'error'}`, 'unavailable');
  }
  return {
    what: 'config',
    status: 'created',
    path: resolved,
    detail: 'config dir created (members, peers, audit log)',
  };
}

export interface MemberRequest {
  id: string;
  tier: 'trusted' | 'quarantined';
  grants: string[];
}

/** Registers a member unless an active one with that id exists (its token is never re-shown). */
export function ensureMember(
  registryPath: string,
  request: MemberRequest,
): { step: SetupStep; issued: IssuedToken | null } {
  const registry = new FederationRegistry(registryPath, { warn: () => {} });
  const problem = registry.problem();
  if (problem)
    throw new BourdonError(
      `registry ${registryPath} is unreadable (${problem}); fix or move it first`,
      'source_unreadable',
    );
  const existing = registry.get(request.id);
  if (existing && !existing.revoked) {
    return {
      step: {
        what: 'member',
        status: 'exists',
        path: registryPath,
        detail: `${existing.agent_id} (${existing.tier}) is already registered; its token is not shown again (\`bourdon agent rotate ${existing.agent_id}\` issues a new one)`,
      },
      issued: null,
    };
  }
  const issued = registry.add(request.id, { tier: request.tier, grants: request.grants });
  const reads =
    issued.tier === 'trusted' ? 'every namespace' : issued.grants.length ? issued.grants.join(', ') : 'nothing yet';
  return {
    step: {
      what: 'member',
      status: 'added',
      path: registryPath,
      detail: `${issued.agent_id} (${issued.tier}; reads: ${reads})`,
    },
    issued,
  };
}

export interface PeerRequest {
  name: string;
  url: string;
  token_env: string;
}

/** Validates a peer request the way `peers add` does; throws a one-line usage error. */
export function checkPeerRequest(request: PeerRequest): PeerConfig {
  return {
    name: checkPeerName(request.name),
    url: normalisePeerUrl(request.url),
    token_env: checkPeerTokenEnv(request.token_env),
  };
}

/** Adds a peer unless the same one is there; a different peer under that name is an error. */
export function ensurePeer(peersPath: string, request: PeerRequest): { step: SetupStep; peer: PeerConfig } {
  const peer = checkPeerRequest(request);
  const same = (other: PeerConfig) =>
    other.name === peer.name && other.url === peer.url && other.token_env === peer.token_env;
  if (readPeersForEdit(peersPath).some(same)) {
    return {
      step: {
        what: 'peer',
        status: 'exists',
        path: peersPath,
        detail: `${peer.name} → ${peer.url} is already configured`,
      },
      peer,
    };
  }
  const status = editPeersFile(peersPath, (peers): StepStatus => {
    if (peers.some(same)) return 'exists';
    if (peers.some((other) => other.name === peer.name)) {
      throw new BourdonError(
        `a different peer named ${JSON.stringify(peer.name)} is already configured; \`bourdon peers remove ${peer.name}\` first`,
        'conflict',
      );
    }
    peers.push(peer);
    return 'added';
  });
  const detail =
    status === 'added'
      ? `${peer.name} → ${peer.url} (token from $${peer.token_env})`
      : `${peer.name} → ${peer.url} is already configured`;
  return { step: { what: 'peer', status, path: peersPath, detail }, peer };
}
