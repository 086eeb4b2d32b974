/** Starts the real `bourdon ui` and a headless Chromium pointed at it (Debian's chromium). */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './fixtures.js';
import { spawnUntil } from './cli.js';

export const CHROMIUM = process.env.BOURDON_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-proxy-server',
];

export interface RunningUi {
  /** The printed link, with its one-time token. */
  url: string;
  origin: string;
  /** The origin and the page's random path prefix: every page is under it. */
  base: string;
  /** The path prefix alone (`/<32 hex>`). */
  prefix: string;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  /** Ctrl-C: sends SIGINT and waits for the exit code. */
  stop(): Promise<number | null>;
}

export async function startUi(library: string, env: Record<string, string> = {}): Promise<RunningUi> {
  const { child, match, stderr, exited } = await spawnUntil(['ui', '--library', library, '--port', '0'], env, {
    stream: 'stdout',
    pattern: /(http:\/\/127\.0\.0\.1:(\d+))(\/[0-9a-f]{32})\/\?token=[0-9a-f]+/,
    timeoutMs: 20_000,
  });
  return {
    url: match[0],
    origin: match[1]!,
    base: match[1]! + match[3]!,
    prefix: match[3]!,
    port: Number(match[2]),
    child,
    stderr,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly the headers given (Host and Origin included). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body ?? '');
  });
}

/** A fresh browser profile dir (removed by the caller). */
/** `bourdon ui` on a library, and a Chromium that opened its link (the one-time token exchanged). */
export interface BrowserSession {
  ui: RunningUi;
  context: BrowserContext;
  page: Page;
  /** Closes the browser (its profile removed) and stops the ui: its exit code. */
  close(): Promise<number | null>;
}

export async function signedInBrowser(library: string, env: Record<string, string> = {}): Promise<BrowserSession> {
  const ui = await startUi(library, env);
  const profile = profileDir();
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close();
    const code = await ui.stop();
    removeAll(profile);
    return code;
  };
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await context.newPage();
    await page.goto(ui.url);
    return { ui, context, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export function profileDir(): string {
  return tempDir('bourdon-chromium-');
}

export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install chromium)`;
}

export function removeAll(...dirs: string[]): void {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}

/** What a fake opener was handed: its argv, the mode of the file it got, and that file's lines. */
export interface OpenerRecord {
  argv: string;
  mode: string;
  content: string;
}

/**
 * A fake `xdg-open` in a folder to put first on PATH: it records its arguments, the mode of the
 * file it was given and what that file holds; `opened()` waits for the record (null if none).
 * It exits with `exitCode` (3 is xdg-open's "no browser to open it with").
 */
export function fakeOpener(exitCode = 0): { bin: string; opened(): Promise<OpenerRecord | null> } {
  const bin = tempDir('bourdon-fake-opener-');
  const log = path.join(bin, 'argv.log');
  fs.writeFileSync(
    path.join(bin, 'xdg-open'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > "${log}.tmp"\nfile=$(printf '%s' "$1" | sed 's|^file://||')\nstat -c '%a' "$file" >> "${log}.tmp"\ncat "$file" >> "${log}.tmp"\nmv "${log}.tmp" "${log}"\nexit ${exitCode}\n`,
    { mode: 0o755 },
  );
  return {
    bin,
    async opened() {
      for (let i = 0; i < 200 && !fs.existsSync(log); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!fs.existsSync(log)) return null;
      const [argv = '', mode = '', ...content] = fs.readFileSync(log, 'utf8').split('\n');
      return { argv, mode, content: content.join('\n') };
    },
  };
}
