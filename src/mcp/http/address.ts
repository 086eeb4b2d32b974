/**
 * Addresses: which hosts and socket addresses are loopback, how a Host header is read, and the
 * Host check (DNS-rebinding defence). No I/O beyond listing this machine's interfaces.
 */
import net from 'node:net';
import os from 'node:os';

/** `localhost` or a loopback IP literal (127.0.0.0/8, ::1, ::ffff:127.x.x.x). */
export function isLoopbackHost(host: string): boolean {
  const bare = stripBrackets(host.trim()).toLowerCase();
  if (bare === 'localhost') return true;
  return net.isIP(bare) !== 0 && isLoopbackAddress(bare);
}

/** Whether a socket address is loopback. Undefined (socket gone) is not: fail closed. */
export function isLoopbackAddress(address: string | undefined): boolean {
  const addr = normaliseAddress(address);
  if (net.isIPv4(addr)) return addr.split('.')[0] === '127';
  if (net.isIPv6(addr)) return expandIpv6(addr) === '0000:0000:0000:0000:0000:0000:0000:0001';
  return false;
}

/**
 * The key a remote address is counted under (failed-auth limits): the caller's network, not
 * its address, since one caller holds many — every loopback address (all of 127.0.0.0/8 and
 * ::1, which any local process may pick from) is one key, any other IPv4 address counts by
 * its /24, an IPv6 address by its /64 (one host usually holds a whole /64). '' when unknown.
 */
export function addressKey(address: string | undefined): string {
  const addr = normaliseAddress(address);
  if (isLoopbackAddress(addr)) return 'loopback';
  if (net.isIPv6(addr)) return `${expandIpv6(addr).split(':').slice(0, 4).join(':')}::/64`;
  if (net.isIPv4(addr)) return `${addr.split('.').slice(0, 3).join('.')}.0/24`;
  return addr;
}

/** Lower case, no brackets, no zone, IPv4-mapped IPv6 as IPv4. */
function normaliseAddress(address: string | undefined): string {
  if (!address) return '';
  let addr = stripBrackets(address).toLowerCase();
  const zone = addr.indexOf('%');
  if (zone >= 0) addr = addr.slice(0, zone);
  if (addr.startsWith('::ffff:') && net.isIPv4(addr.slice(7))) addr = addr.slice(7);
  return addr;
}

function expandIpv6(addr: string): string {
  const [head, tail = ''] = addr.split('::');
  const left = head ? head.split(':') : [];
  const right = addr.includes('::') ? (tail ? tail.split(':') : []) : [];
  const missing = 8 - left.length - right.length;
  const groups = addr.includes('::') ? [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right] : left;
  return groups.map((group) => group.padStart(4, '0')).join(':');
}

export function stripBrackets(value: string): string {
  return value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
}

export function isWildcard(host: string): boolean {
  const bare = stripBrackets(host).toLowerCase();
  return bare === '0.0.0.0' || bare === '::' || bare === '0:0:0:0:0:0:0:0';
}

/** `host` as it goes in a URL: IPv6 literals in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Splits a Host header (or an --allowed-host value) into a lower-case name and an optional port. */
export function parseHostHeader(value: string): { name: string; port: number | null } | null {
  const text = value.trim().toLowerCase();
  if (!text) return null;
  let name: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return null;
    name = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest && !rest.startsWith(':')) return null;
    portText = rest ? rest.slice(1) : undefined;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0 && text.indexOf(':') !== colon) return { name: text, port: null }; // bare IPv6 (only in our own lists)
    name = colon >= 0 ? text.slice(0, colon) : text;
    portText = colon >= 0 ? text.slice(colon + 1) : undefined;
  }
  if (!name) return null;
  if (portText === undefined) return { name, port: null };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) return null;
  return { name, port: Number(portText) };
}

/**
 * The Host check (DNS-rebinding defence). Accepted: the loopback names and the bound address
 * on the served port (for a wildcard bind, this machine's own interface addresses), plus the
 * --allowed-host values: `name` accepts that name with no port or the served port,
 * `name:port` exactly that. A Host without a port means port 80.
 *
 * Ours, not the SDK's `validateHostHeader`: that one matches the name only, on any port, and
 * takes names only; we also require the served port and accept `name:port` entries.
 */
export function makeHostCheck(
  boundHost: string,
  port: number,
  allowedHosts: readonly string[],
): (header: string | undefined) => boolean {
  const own = new Set(['localhost', '127.0.0.1', '::1']);
  if (isWildcard(boundHost)) {
    for (const list of Object.values(os.networkInterfaces()))
      for (const info of list ?? []) own.add(info.address.toLowerCase());
  } else {
    own.add(stripBrackets(boundHost).toLowerCase());
  }
  const extra = allowedHosts.map((value) => parseHostHeader(value)).filter((entry) => entry !== null);
  return (header) => {
    if (!header) return false;
    const parsed = parseHostHeader(header);
    if (!parsed) return false;
    const effectivePort = parsed.port ?? 80;
    if (own.has(parsed.name) && effectivePort === port) return true;
    return extra.some(
      (entry) =>
        entry.name === parsed.name &&
        (entry.port === null ? parsed.port === null || parsed.port === port : entry.port === effectivePort),
    );
  };
}
