/**
 * Peer configuration (spec §11). A server starts with zero peers; networking is opted into by
 * exactly one of --federate (the peers file), --peers-config <path> or --peer <url>. Every
 * rule fails closed: a missing or invalid file refuses to start rather than run local-only
 * while the operator believes it federates.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileDurably } from '../fs/atomic.js';
import { BourdonError, describeError, UsageError, errnoOf } from '../errors.js';
import { isValidAgentId } from '../store/ids.js';
import { isObject } from '../store/manifest.js';
import type { RawObject } from '../store/model.js';
import { lockConfigFile } from '../trust/registry.js';
import { NotYamlMapping, parseYamlMapping, stringifyYaml } from '../store/yaml.js';

export const DEFAULT_TOKEN_ENV = 'BOURDON_PEER_TOKEN';
const TOKEN_ENV_PATTERN = /^BOURDON_PEER_[A-Z0-9_]+$/;
/** This server's own operator token (spec §10): never sent to another machine. */
const SERVER_TOKEN_ENV = 'BOURDON_PEER_TOKEN_SERVER';
/**
 * Keys of a peer entry that would hold a secret in the file itself. The file names variables
 * only (`token_env`); a token written into it is refused, never used, and never echoed.
 */
const SECRET_KEYS = /^(?:token|bearer|secret|password|api[_-]?key|auth(?:orization)?)$/i;

export interface PeerConfig {
  name: string;
  /** Normalised endpoint, always ending in /mcp. */
  url: string;
  token_env: string;
}

function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Validates and normalises a peer URL; throws a one-line reason naming the URL as `what`
 * (`peer url`, or `--http url` where the same rules check another flag).
 */
export function normalisePeerUrl(raw: string, what = 'peer url'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid ${what} ${JSON.stringify(raw)}: not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid ${what} ${JSON.stringify(raw)}: use https (http only on loopback)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHostname(url.hostname)) {
    throw new UsageError(`invalid ${what} ${JSON.stringify(raw)}: http is allowed only on loopback; use https`);
  }
  if (url.username || url.password) {
    throw new UsageError(`invalid ${what}: credentials in the URL are not allowed; use --token-env`);
  }
  if (url.search || raw.includes('?')) throw new UsageError(`invalid ${what}: a query string is not allowed`);
  if (url.hash || raw.includes('#')) throw new UsageError(`invalid ${what}: a fragment is not allowed`);
  if (!url.pathname.endsWith('/mcp')) url.pathname = url.pathname.replace(/\/+$/, '') + '/mcp';
  return url.toString();
}

function checkTokenEnv(name: string): string {
  if (!TOKEN_ENV_PATTERN.test(name)) {
    throw new UsageError(`invalid token_env ${JSON.stringify(name)}: must be a BOURDON_PEER_* variable name`);
  }
  return name;
}

/** A peer's token variable: a BOURDON_PEER_* name, and never this server's own operator token. */
export function checkPeerTokenEnv(name: string): string {
  checkTokenEnv(name);
  if (name === SERVER_TOKEN_ENV) {
    throw new UsageError(
      `invalid token_env ${SERVER_TOKEN_ENV}: that is this server's own operator token and is never sent to a peer; use the token the peer issued (\`bourdon agent add\` there), in a variable of its own such as BOURDON_PEER_LAPTOP`,
    );
  }
  return name;
}

/** Whether a peer's token variable holds a token in `env` (blank counts as unset, as a peer call finds it). */
export function peerTokenSet(peer: Pick<PeerConfig, 'token_env'>, env: NodeJS.ProcessEnv): boolean {
  return Boolean((env[peer.token_env] ?? '').trim());
}

/**
 * The stdio bridge's token variable: a BOURDON_PEER_* name; this server's own operator token
 * only for a server on this machine (the operator bridging to their own HTTP server). It never
 * goes to another machine, as it never goes to a peer.
 */
export function checkBridgeTokenEnv(name: string, url: string): string {
  checkTokenEnv(name);
  const target = new URL(url);
  if (name === SERVER_TOKEN_ENV && !isLoopbackHostname(target.hostname)) {
    throw new UsageError(
      `--token-env ${SERVER_TOKEN_ENV} is refused for ${target.host}: that is this server's own operator token and is sent only to a server on this machine; use the token that server issued (\`bourdon agent add\` there), in a variable of its own such as BOURDON_PEER_DESK`,
    );
  }
  return name;
}

export function checkPeerName(name: string): string {
  if (!isValidAgentId(name))
    throw new UsageError(`invalid peer name ${JSON.stringify(name)}: must match ^[a-z0-9][a-z0-9_-]*$`);
  return name;
}

/** A name for a peer given only by URL (--peer): its host and port, as an id. */
export function peerNameFromUrl(url: string): string {
  const parsed = new URL(url);
  const base = `${parsed.hostname.replace(/^\[|\]$/g, '')}${parsed.port ? `-${parsed.port}` : ''}`;
  return (
    base
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 64) || 'peer'
  );
}

function notPeersMapping(source: string): BourdonError {
  return new BourdonError(`peers file ${source} must be a mapping with a \`peers:\` list`, 'invalid_input');
}

export function parsePeersFile(text: string, source: string): PeerConfig[] {
  let doc: RawObject | null;
  try {
    doc = parseYamlMapping(text);
  } catch (error) {
    if (error instanceof NotYamlMapping && !error.syntax) throw notPeersMapping(source);
    throw new BourdonError(`peers file ${source} is not valid YAML: ${describeError(error)}`, 'invalid_input');
  }
  if (doc === null) return [];
  if (doc.peers !== undefined && doc.peers !== null && !Array.isArray(doc.peers)) throw notPeersMapping(source);
  const peers: PeerConfig[] = [];
  const names = new Set<string>();
  for (const [index, raw] of ((doc.peers as unknown[] | null) ?? []).entries()) {
    const where = `peers file ${source}, entry ${index + 1}`;
    if (!isObject(raw) || typeof raw.name !== 'string' || typeof raw.url !== 'string') {
      throw new BourdonError(`${where}: needs a name and a url`, 'invalid_input');
    }
    const secretKey = Object.keys(raw).find((key) => SECRET_KEYS.test(key));
    if (secretKey !== undefined) {
      throw new BourdonError(
        `${where}: a \`${secretKey}:\` key is not allowed: the file holds variable names only; remove it, put the token in a BOURDON_PEER_* variable named by \`token_env:\`, and rotate it (it was stored in plain text)`,
        'invalid_input',
      );
    }
    try {
      const peer = {
        name: checkPeerName(raw.name),
        url: normalisePeerUrl(raw.url),
        token_env: checkPeerTokenEnv(typeof raw.token_env === 'string' ? raw.token_env : DEFAULT_TOKEN_ENV),
      };
      if (names.has(peer.name))
        throw new BourdonError(`duplicate peer name ${JSON.stringify(peer.name)}`, 'invalid_input');
      names.add(peer.name);
      peers.push(peer);
    } catch (error) {
      throw new BourdonError(`${where}: ${(error as Error).message}`, 'invalid_input');
    }
  }
  return peers;
}

/** Reads a peers file; missing or invalid is an error (fail closed). */
export function loadPeersFile(file: string): PeerConfig[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = errnoOf(error);
    throw new BourdonError(
      `peers file ${file} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}; refusing to start without the peers you asked for`,
      code === 'ENOENT' ? 'not_found' : 'source_unreadable',
    );
  }
  return parsePeersFile(text, file);
}

/** Reads a peers file for editing: missing means no peers yet. */
export function readPeersForEdit(file: string): PeerConfig[] {
  return fs.existsSync(file) ? loadPeersFile(file) : [];
}

function writePeersFile(file: string, peers: readonly PeerConfig[]): void {
  writeFileDurably(file, stringifyYaml({ peers: peers.map((peer) => ({ ...peer })) }), 0o600);
}

/** Read-modify-write of the peers file under a lock. */
export function editPeersFile<T>(file: string, change: (peers: PeerConfig[]) => T): T {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const release = lockConfigFile(file);
  try {
    const peers = readPeersForEdit(file);
    const result = change(peers);
    writePeersFile(file, peers);
    return result;
  } finally {
    release();
  }
}

interface PeerSelection {
  federate?: boolean;
  peersConfig?: string;
  peer?: string[];
  noPeers?: boolean;
}

/**
 * The peers a server starts with. Exactly one way to opt in; --no-peers asserts local-only
 * and refuses the others. Tokens are resolved later, per call, from each peer's variable.
 */
export function selectPeers(selection: PeerSelection, defaultPeersFile: string): PeerConfig[] {
  const chosen = [
    selection.federate ? '--federate' : null,
    selection.peersConfig ? '--peers-config' : null,
    selection.peer?.length ? '--peer' : null,
  ].filter((value): value is string => value !== null);
  if (selection.noPeers && chosen.length)
    throw new UsageError(`--no-peers cannot be combined with ${chosen.join(', ')}`);
  if (chosen.length > 1)
    throw new UsageError(`choose one of --federate, --peers-config, --peer (got ${chosen.join(', ')})`);
  if (selection.federate) return loadPeersFile(defaultPeersFile);
  if (selection.peersConfig) return loadPeersFile(selection.peersConfig);
  if (selection.peer?.length) {
    const peers: PeerConfig[] = [];
    for (const raw of selection.peer) {
      const url = normalisePeerUrl(raw);
      let name = peerNameFromUrl(url);
      while (peers.some((peer) => peer.name === name)) name = `${name}-${peers.length + 1}`;
      peers.push({ name, url, token_env: DEFAULT_TOKEN_ENV });
    }
    return peers;
  }
  return [];
}
