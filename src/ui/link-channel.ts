/**
 * New one-time links for a running `bourdon ui`, without a restart. The server listens on a
 * Unix socket in a folder only this user can enter (`<BOURDON_HOME>/ui/`, mode 700), named for
 * the library it serves; a second `bourdon ui` for the same library connects to it, asks for a
 * link, and prints or opens it instead of starting another server.
 *
 * The folder's permissions are the authentication: the kernel lets only this user (and root)
 * connect, so there is no secret on disk. Both sides fail closed: a folder or socket that is not
 * this user's, or is open to others, is not used (the server offers no channel, the client
 * starts its own server), and an answer that is not a link of this shape is ignored. The link
 * travels only over the socket, never in argv or a log. Not on Windows (no Unix sockets there):
 * there a new link still needs a restart.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { nameHash } from '../core/store/hashing.js';
import { errnoOf } from '../core/errors.js';

/** What the running server answers: the same fields `bourdon ui --json` prints. */
export interface MintedLink {
  url: string;
  origin: string;
  port: number;
  library: string;
}

/** The one route the channel serves. */
const MINT_PATH = '/link';
/** How long a client waits for the running server's answer before starting its own. */
const ASK_TIMEOUT_MS = 5_000;
/** Longest socket path the platforms take (sun_path is 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 103;
const LINK_SHAPE = /^http:\/\/127\.0\.0\.1:(\d+)\/[0-9a-f]{32}\/\?token=[0-9a-f]{64}$/;

/**
 * The socket for a library: `<home>/ui/<first 16 hex of sha256(library root)>.sock`, or null
 * where there can be none (Windows, or a path too long for a socket).
 */
export function linkSocketPath(home: string, libraryRoot: string): string | null {
  if (process.platform === 'win32') return null;
  const name = nameHash(path.resolve(libraryRoot));
  const socket = path.join(home, 'ui', `${name}.sock`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : null;
}

/** The folder is this user's, a real folder (no symlink), and closed to group and others. */
function privateDir(dir: string): boolean {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** True when something answers on the socket (another server for this library is running). */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath: socket, method: 'HEAD', path: '/', timeout: ASK_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

export interface LinkChannel {
  close(): Promise<void>;
}

/**
 * Serves `POST /link` on the library's socket: each call makes the server's one-time token a
 * new one (`mint`) and answers the link. Resolves null, saying why through `warn`, when it cannot
 * offer one safely; the page works as before, and a new link needs a restart.
 */
export async function openLinkChannel(
  socket: string,
  mint: () => MintedLink,
  warn: (message: string) => void,
): Promise<LinkChannel | null> {
  const dir = path.dirname(socket);
  const refuse = (why: string) => {
    warn(`ui: no new links without a restart: ${why}`);
    return null;
  };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    return refuse(`cannot create ${dir} (${errnoOf(error) ?? 'error'})`);
  }
  if (!privateDir(dir)) return refuse(`${dir} is not a folder only you can open`);
  if (fs.existsSync(socket)) {
    if (await answers(socket)) return refuse(`another bourdon ui answers on ${socket}`);
    fs.rmSync(socket, { force: true }); // left by a server that died
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== MINT_PATH) {
      res.writeHead(404).end();
      return;
    }
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(mint()));
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 5_000;
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(socket, () => resolve(true));
  });
  if (!listening) return refuse(`cannot listen on ${socket}`);
  fs.chmodSync(socket, 0o600); // the folder already keeps others out; the socket says so too
  return {
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
        fs.rmSync(socket, { force: true });
      }),
  };
}

/**
 * A new one-time link from the `bourdon ui` already serving this library, or null when none
 * answers (or the socket or its folder is not safely this user's, or the answer is not a link).
 */
export async function askRunningUi(socket: string): Promise<MintedLink | null> {
  if (!privateDir(path.dirname(socket))) return null;
  try {
    const stat = fs.lstatSync(socket);
    if (!stat.isSocket() || stat.uid !== process.getuid?.()) return null;
  } catch {
    return null;
  }
  const body = await new Promise<string | null>((resolve) => {
    const req = http.request(
      { socketPath: socket, method: 'POST', path: MINT_PATH, timeout: ASK_TIMEOUT_MS },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length + chunk.length > 4096) req.destroy();
          else text += chunk;
        });
        res.on('end', () => resolve(res.statusCode === 200 ? text : null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
  if (body === null) return null;
  try {
    const link = JSON.parse(body) as Partial<MintedLink>;
    const match = typeof link.url === 'string' ? LINK_SHAPE.exec(link.url) : null;
    if (!match || typeof link.library !== 'string') return null;
    const port = Number(match[1]);
    return { url: link.url!, origin: `http://127.0.0.1:${port}`, port, library: link.library };
  } catch {
    return null;
  }
}
