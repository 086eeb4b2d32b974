/**
 * Where the OpenClaw instance is and how it is asked (docs/participants.md, "openclaw";
 * docs/security.md): OPENCLAW_URL (or --url), OPENCLAW_TOKEN, the timeouts and the answer cap,
 * each checked before any request. The token never crosses the network in clear to another
 * machine unless the user says so (`--insecure`, BOURDON_OPENCLAW_INSECURE), as credential tools
 * refuse plain http to a remote host.
 */
import net from 'node:net';
import { UsageError } from '../../core/errors.js';
import type { ExportEnvironment } from '../kit/participant.js';
import type { InstanceClientOptions } from './http.js';

type Env = ExportEnvironment['env'];

/** The engine's default instance. */
const DEFAULT_URL = 'http://127.0.0.1:8080';
/** Until the TCP connection is made (DNS included), per request. */
const DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;
/** Until the last byte of the last answer: the whole export, every request and redirect in it. */
const DEFAULT_TIMEOUT_SECONDS = 30;
/** The largest answer read: 10,000 sessions take about 2 MB; far past that is not an OpenClaw answer. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/** The variable `--insecure` stands for. */
export const INSECURE_VARIABLE = 'BOURDON_OPENCLAW_INSECURE';

/** A variable's value; an empty one counts as unset (README, Environment). */
export function setting(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function positiveNumber(env: Env, name: string, flag: string, fallback: number, max: number): number {
  const raw = setting(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value <= 0 || value > max)
    throw new UsageError(`${flag} (${name}) must be a number above 0 and at most ${max} (got ${JSON.stringify(raw)})`);
  return value;
}

/**
 * Whether a URL's host is this machine: `localhost`, an IPv4 address in 127.0.0.0/8, `::1`, or
 * an IPv4-mapped IPv6 address of one (`::ffff:127.0.0.1`, which URL writes `::ffff:7f00:1`).
 * Any other name may resolve anywhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (!net.isIPv6(host)) return false;
  if (host === '::1') return true;
  const mapped = /^::ffff:(?:(127\.[\d.]+)|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.exec(host);
  return mapped !== null;
}

/**
 * Why the token may not be sent to this URL, or undefined: over plain http it would cross the
 * network readable by anyone on the way, so a host other than this machine needs the user's
 * word (`--insecure`, or BOURDON_OPENCLAW_INSECURE set to anything but `0`). Without a token
 * nothing secret is sent.
 */
export function insecureProblem(url: URL, token: string | undefined, env: Env): string | undefined {
  if (token === undefined || url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  const insecure = setting(env, INSECURE_VARIABLE);
  if (insecure !== undefined && insecure.trim() !== '0') return undefined;
  return `refusing to send OPENCLAW_TOKEN over plain http to ${url.host}, which is not this machine: anyone on the way could read it. Use https://, or pass --insecure (${INSECURE_VARIABLE}=1) to send it anyway`;
}

/** Where the instance is and how it is asked: OPENCLAW_URL (or --url), OPENCLAW_TOKEN, the limits. */
export interface InstanceSettings {
  /** The instance URL as given, trailing `/` removed: also the manifest's `agent.instance`. */
  readonly url: string;
  readonly client: InstanceClientOptions;
}

export function instanceSettings(env: Env): InstanceSettings {
  const url = (setting(env, 'OPENCLAW_URL') ?? DEFAULT_URL).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the OpenClaw URL ${JSON.stringify(url)} (--url or OPENCLAW_URL) is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`the OpenClaw URL must start with http:// or https:// (got ${parsed.protocol})`);
  // Credentials in the URL would be written into the manifest (agent.instance) and shown in messages.
  if (parsed.username || parsed.password)
    throw new UsageError('the OpenClaw URL carries credentials; give the token in OPENCLAW_TOKEN, not in the URL');
  if (parsed.search || parsed.hash)
    throw new UsageError(
      'the OpenClaw URL is a base address: scheme, host, port and an optional path, no ?query or #fragment',
    );
  const token = setting(env, 'OPENCLAW_TOKEN');
  if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
    throw new UsageError(
      'OPENCLAW_TOKEN holds a space, a control or a non-ASCII character, which a bearer token cannot (its value is not shown)',
    );
  const insecure = insecureProblem(parsed, token, env);
  if (insecure !== undefined) throw new UsageError(insecure);
  return {
    url,
    client: {
      baseUrl: url,
      token,
      connectTimeoutMs:
        positiveNumber(
          env,
          'BOURDON_OPENCLAW_CONNECT_TIMEOUT',
          '--connect-timeout',
          DEFAULT_CONNECT_TIMEOUT_SECONDS,
          3600,
        ) * 1000,
      timeoutMs: positiveNumber(env, 'BOURDON_OPENCLAW_TIMEOUT', '--timeout', DEFAULT_TIMEOUT_SECONDS, 3600) * 1000,
      maxBytes: Math.floor(
        positiveNumber(env, 'BOURDON_OPENCLAW_MAX_BYTES', 'the answer cap', DEFAULT_MAX_BYTES, Number.MAX_SAFE_INTEGER),
      ),
    },
  };
}

/** The instance URL as doctor may show it when it is refused: never the credentials it may carry. */
export function shownUrl(env: Env): string {
  try {
    const url = new URL(setting(env, 'OPENCLAW_URL') ?? DEFAULT_URL);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'OPENCLAW_URL (not an http or https URL)';
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return 'OPENCLAW_URL (not a URL)';
  }
}

/** The token the export was given: the runner removes it from everything it writes or prints. */
export function tokenOf(env: Env): string | undefined {
  return setting(env, 'OPENCLAW_TOKEN');
}
