/**
 * What `bourdon init` sets up, its plan: read from the flags with --yes (planFromFlags), or
 * made of the wizard's answers, which the checks here validate as they are typed; and the
 * agents found on this machine that it offers to export. The wizard's questions stay in the
 * command (src/commands/init.ts); what it prints at the end is init-summary.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from './host-config.js';
import { foundSources } from './participant-runs.js';
import type { ExportEnvironment, Participant } from '../participants/kit/participant.js';
import { PARTICIPANTS } from '../participants/registry.js';
import { UsageError } from '../core/errors.js';
import { invalidAgentIdMessage, isValidAgentId } from '../core/store/ids.js';
import { checkPeerTokenEnv, normalisePeerUrl, peerNameFromUrl } from '../core/federation/peers-config.js';
import { checkPeerRequest, type MemberRequest, type PeerRequest } from '../core/admin/setup.js';
import { loadPeersFile } from '../core/federation/peers-config.js';
import { parseRegistry } from '../core/trust/registry.js';

export interface Plan {
  library: string;
  member: MemberRequest | null;
  peer: PeerRequest | null;
  hosts: Host[];
  /** Install the Claude Code SessionEnd hook that runs `bourdon claude-code export`. */
  claudeHook: boolean;
  /** The agents (participants whose sources are on this machine) to export into the library now. */
  exports: string[];
}

export interface InitFlags {
  library?: string;
  yes: boolean;
  member?: string;
  tier: string;
  grant?: string[];
  'peer-url'?: string;
  'peer-name'?: string;
  'peer-token-env': string;
  host?: string[];
  'claude-hook': boolean;
  export: boolean;
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function grantsProblem(text: string): true | string {
  const bad = splitList(text).find((item) => !isValidAgentId(item));
  return bad === undefined ? true : `${JSON.stringify(bad)} is not an agent id`;
}

/** true when `check` accepts the trimmed text, else what it refused it with. */
function refusal(check: (value: string) => unknown, text: string): true | string {
  try {
    check(text.trim());
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

export function urlProblem(text: string): true | string {
  return refusal(normalisePeerUrl, text);
}

export function tokenEnvProblem(text: string): true | string {
  return refusal(checkPeerTokenEnv, text);
}

/** The registered participants with at least one source on this machine, in registry order. */
export async function availableParticipants(environment: ExportEnvironment): Promise<Participant[]> {
  const available: Participant[] = [];
  for (const participant of PARTICIPANTS)
    if ((await foundSources(participant, environment)).found) available.push(participant);
  return available;
}

/**
 * The agents of `available` the library already holds: a live manifest (agents/<id>.l5.yaml)
 * or one staged for review (staging/<id>/<id>.l5.yaml). A second init names them as set up
 * and offers to export only the others.
 */
export function inLibrary(library: string, available: readonly Participant[]): string[] {
  const file = (id: string) => `${id}.l5.yaml`;
  return available
    .map((participant) => participant.agentId)
    .filter(
      (id) =>
        fs.existsSync(path.join(library, 'agents', file(id))) ||
        fs.existsSync(path.join(library, 'staging', id, file(id))),
    );
}

/** What a second init finds already set up: the members (not revoked) and the peers, by name. */
export interface ExistingSetup {
  members: { id: string; tier: string }[];
  peers: string[];
}

/** The members and peers already there; a file that cannot be read counts as none (doctor says why). */
export function existingSetup(registryFile: string, peersFile: string): ExistingSetup {
  let members: ExistingSetup['members'] = [];
  let peers: string[] = [];
  try {
    members = [...parseRegistry(fs.readFileSync(registryFile, 'utf8'))]
      .filter(([, row]) => !row.revoked)
      .map(([id, row]) => ({ id, tier: row.tier }));
  } catch {
    // none, or unreadable
  }
  try {
    peers = fs.existsSync(peersFile) ? loadPeersFile(peersFile).map((peer) => peer.name) : [];
  } catch {
    // unreadable
  }
  return { members, peers };
}

export function planFromFlags(library: string, flags: InitFlags, available: readonly Participant[]): Plan {
  let member: MemberRequest | null = null;
  if (flags.member !== undefined) {
    if (!isValidAgentId(flags.member)) throw new UsageError(invalidAgentIdMessage(flags.member, 'member id'));
    const grants = (flags.grant ?? []).map((grant) => grant.trim()).filter(Boolean);
    const problem = grantsProblem(grants.join(','));
    if (problem !== true) throw new UsageError(`--grant: ${problem}`);
    member = { id: flags.member, tier: flags.tier as MemberRequest['tier'], grants };
  } else if (flags.grant?.length) {
    throw new UsageError('--grant needs --member');
  }
  let peer: PeerRequest | null = null;
  if (flags['peer-url'] !== undefined) {
    const url = normalisePeerUrl(flags['peer-url']);
    peer = checkPeerRequest({
      name: flags['peer-name'] ?? peerNameFromUrl(url),
      url,
      token_env: flags['peer-token-env'],
    });
  } else if (flags['peer-name'] !== undefined) {
    throw new UsageError('--peer-name needs --peer-url');
  }
  return {
    library,
    member,
    peer,
    hosts: [...new Set((flags.host ?? []) as Host[])],
    claudeHook: flags['claude-hook'],
    exports: flags.export ? available.map((participant) => participant.agentId) : [],
  };
}
