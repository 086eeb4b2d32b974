/**
 * Binding: the rules for which binds may start (spec §10), listening with one-line errors,
 * and the startup line.
 */
import type http from 'node:http';
import { BourdonError, describeError } from '../../core/errors.js';
import { isLoopbackHost, urlHost } from './address.js';
import { MIN_LEGACY_TOKEN_LENGTH } from './auth.js';
import { MCP_PATH } from './guards.js';

export const LEGACY_TOKEN_ENV = 'BOURDON_PEER_TOKEN_SERVER';

/** The server refused to start on an unsafe bind (spec §10). The message is one line. */
export class BindRefusedError extends BourdonError {
  constructor(message: string) {
    super(message, 'invalid_input');
    this.name = 'BindRefusedError';
  }
}

export type AuthMode = 'bearer' | 'unauthenticated' | 'unconfigured';

interface BindFacts {
  host: string;
  allowUnauthenticated: boolean;
  authConfigured: boolean;
  /** Length of the legacy token (0 when unset). */
  legacyLength: number;
}

/**
 * Throws BindRefusedError when the bind is unsafe; returns a warning (or null) otherwise.
 * Off loopback: no anonymous access, some auth, and no legacy token shorter than 32 characters
 * (a guessable shared secret would be the operator's key to the network).
 */
export function checkBind(facts: BindFacts): string | null {
  const { host, allowUnauthenticated, authConfigured, legacyLength } = facts;
  if (!host) throw new BindRefusedError('refusing to start: empty --host');
  const shortLegacy = !allowUnauthenticated && legacyLength > 0 && legacyLength < MIN_LEGACY_TOKEN_LENGTH;
  if (isLoopbackHost(host)) {
    return shortLegacy
      ? `${LEGACY_TOKEN_ENV} is ${legacyLength} characters; a network-reachable bind would refuse a token shorter than ${MIN_LEGACY_TOKEN_LENGTH} (e.g. \`openssl rand -hex 32\`)`
      : null;
  }
  if (allowUnauthenticated) {
    throw new BindRefusedError(
      `refusing to start: --allow-unauthenticated with non-loopback bind '${host}'. Anonymous access is loopback-only; register a member token (\`bourdon agent add <id>\`) or set ${LEGACY_TOKEN_ENV} to serve on this interface.`,
    );
  }
  if (!authConfigured) {
    throw new BindRefusedError(
      `refusing to start: bind '${host}' is network-reachable but no auth is configured. Register a member token (\`bourdon agent add <id>\`) or set ${LEGACY_TOKEN_ENV}, or bind 127.0.0.1.`,
    );
  }
  if (shortLegacy) {
    throw new BindRefusedError(
      `refusing to start: ${LEGACY_TOKEN_ENV} is ${legacyLength} characters; bind '${host}' is network-reachable and needs at least ${MIN_LEGACY_TOKEN_LENGTH} (e.g. \`openssl rand -hex 32\`), or register members instead, or bind 127.0.0.1.`,
    );
  }
  return null;
}

/** Listens, or fails with one line saying why. */
export function listen(server: http.Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const where = `${urlHost(host)}:${port}`;
      if (error.code === 'EADDRINUSE')
        reject(new BourdonError(`cannot listen on ${where}: the port is in use`, 'unavailable'));
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new BourdonError(`cannot listen on ${where}: no such address on this machine`, 'unavailable'));
      else if (error.code === 'EACCES')
        reject(new BourdonError(`cannot listen on ${where}: permission denied`, 'unavailable'));
      else reject(new BourdonError(`cannot listen on ${where}: ${error.code ?? describeError(error)}`, 'unavailable'));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

export function describeServing(host: string, port: number, mode: AuthMode, legacy: boolean, members: boolean): string {
  const where = `http://${urlHost(host)}:${port}${MCP_PATH}`;
  const eras = 'MCP 2025-11-25 (handshake) and 2026-07-28 (stateless)';
  if (mode === 'unauthenticated') {
    return `listening on ${where} (${eras}); auth: none (--allow-unauthenticated): every caller is the operator; loopback only`;
  }
  if (mode === 'unconfigured') {
    return `listening on ${where} (${eras}); auth: NOT CONFIGURED: every request gets 503 until a member is registered (\`bourdon agent add <id>\`) or ${LEGACY_TOKEN_ENV} is set`;
  }
  const ways = [
    members ? 'registered member tokens (`bourdon agent list`)' : null,
    legacy ? `the ${LEGACY_TOKEN_ENV} token (operator)` : null,
  ]
    .filter(Boolean)
    .join(' or ');
  const remote = isLoopbackHost(host) ? '' : '; callers from other machines never see private rows';
  return `listening on ${where} (${eras}); auth: Authorization: Bearer <token>, with ${ways}${remote}`;
}
