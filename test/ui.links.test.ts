/**
 * A new one-time link for a running `bourdon ui`, without a restart: running `bourdon ui` again
 * for the same library asks the running server (over its owner-only Unix socket) instead of
 * starting a second one. The real binary, real sockets; and the ways the channel fails closed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { linkSocketPath } from '../src/ui/link-channel.js';
import { baseEnv, runCli } from './helpers/cli.js';
import { BIN, copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { fakeOpener, rawRequest, removeAll, startUi, type RunningUi } from './helpers/ui.js';

const running: RunningUi[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const ui of running.splice(0)) await ui.stop();
});
afterAll(() => removeAll(...dirs));

function setup(): { library: string; home: string; env: Record<string, string> } {
  const library = copyFixtureLibrary();
  const home = tempDir('bourdon-ui-links-');
  dirs.push(library, home);
  return { library, home, env: { BOURDON_HOME: home } };
}

async function serve(library: string, env: Record<string, string>): Promise<RunningUi> {
  const ui = await startUi(library, env);
  running.push(ui);
  return ui;
}

/** Waits for the server's stderr to say `text` (it may arrive after the link on stdout). */
async function saysOnStderr(ui: RunningUi, text: string): Promise<string> {
  for (let i = 0; i < 100 && !ui.stderr().includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return ui.stderr();
}

/** Exchanges a link for a session: 303 with a cookie, or the refusal. */
async function open(ui: RunningUi, url: string) {
  const link = new URL(url);
  return rawRequest(ui.port, { path: `${link.pathname}${link.search}` });
}

describe('bourdon ui, run again for the same library', () => {
  it('asks the running server for a new link: the new one opens the page once, the unused old one stops working', async () => {
    const { library, env } = setup();
    const ui = await serve(library, env);
    const again = await runCli(['ui', '--library', library], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`already serving ${library} on ${ui.origin}`);
    const [, link = '', secret = ''] = /(http:\/\/\S+\?token=([0-9a-f]{64}))/.exec(again.stdout)!;
    expect(link.startsWith(`${ui.base}/?token=`)).toBe(true);
    expect(link).not.toBe(ui.url);
    expect(again.stderr).not.toContain(secret);
    expect(ui.stderr()).not.toContain(secret);

    expect((await open(ui, ui.url)).status).toBe(403);
    const first = await open(ui, link);
    expect(first.status).toBe(303);
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    expect((await rawRequest(ui.port, { path: `${ui.prefix}/`, headers: { Cookie: cookie } })).status).toBe(200);
    expect((await open(ui, link)).status).toBe(403);

    // --json answers the same fields as a fresh server, and says it came from a running one.
    const json = await runCli(['ui', '--library', library, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ origin: ui.origin, port: ui.port, library, running: true });
  }, 60_000);

  it('--open hands the new link to the opener in a private file, never in argv, and removes the file on Ctrl-C', async () => {
    const { library, env } = setup();
    const ui = await serve(library, env);
    const opener = fakeOpener();
    dirs.push(opener.bin);
    const child = spawn(process.execPath, [BIN, 'ui', '--open', '--library', library], {
      env: baseEnv({ ...env, PATH: `${opener.bin}:${process.env.PATH}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const record = (await opener.opened())!;
    expect(stdout).toContain(`already serving ${library} on ${ui.origin}`);
    const [, link = '', secret = ''] = /(http:\/\/\S+\?token=([0-9a-f]{64}))/.exec(stdout)!;
    expect(record.argv).toMatch(/^file:\/\/.*open\.html$/);
    expect(record.argv).not.toContain(secret);
    expect(record.mode).toBe('600');
    expect(record.content).toContain(`url=${link}`);
    // The link the opener got is the running server's new one: it opens the page once.
    expect((await open(ui, link)).status).toBe(303);
    // While it holds the file for the browser, it says so rather than sit silent.
    for (let i = 0; i < 100 && !stderr.includes('Ctrl-C'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stderr).toMatch(/^bourdon ui: the browser is opening the link printed above; this ends in 15 s/);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(fs.existsSync(record.argv.replace(/^file:\/\//, ''))).toBe(false);
  }, 60_000);

  it('--open with no browser to open it says so in one line, pointing at the printed link, and ends at once', async () => {
    const { library, env } = setup();
    await serve(library, env);
    const opener = fakeOpener(3);
    dirs.push(opener.bin);
    const again = await runCli(['ui', '--open', '--library', library], {
      env: { ...env, PATH: `${opener.bin}:${process.env.PATH}` },
    });
    const record = (await opener.opened())!;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/http:\/\/\S+\?token=[0-9a-f]{64}/);
    expect(again.stderr).toBe(
      'bourdon: could not open a browser (xdg-open exited with 3); the link is printed above: open it by hand\n',
    );
    // Nothing was left to wait for: the file the opener got is already gone.
    expect(fs.existsSync(record.argv.replace(/^file:\/\//, ''))).toBe(false);
  }, 60_000);

  it('a server killed without cleaning up leaves a socket the next server replaces', async () => {
    const { library, home, env } = setup();
    const first = await startUi(library, env);
    first.child.kill('SIGKILL');
    await first.stop();
    const socket = linkSocketPath(home, library)!;
    expect(fs.existsSync(socket)).toBe(true);
    const second = await serve(library, env);
    expect(second.stderr()).not.toContain('no new links');
    const again = await runCli(['ui', '--library', library], { env });
    expect(again.stdout).toContain(`already serving ${library} on ${second.origin}`);
  }, 60_000);
});

describe('the link channel fails closed', () => {
  it('a socket folder open to others is not used: no channel, and a second run starts its own server', async () => {
    const { library, home, env } = setup();
    fs.mkdirSync(path.join(home, 'ui'), { mode: 0o755 });
    fs.chmodSync(path.join(home, 'ui'), 0o755);
    const ui = await serve(library, env);
    expect(await saysOnStderr(ui, 'no new links without a restart')).toContain('is not a folder only you can open');
    expect(fs.readdirSync(path.join(home, 'ui'))).toEqual([]);
    const second = await serve(library, env);
    expect(second.origin).not.toBe(ui.origin);
  }, 60_000);

  it('an answer on the socket that is not a link is ignored: bourdon ui serves the page itself', async () => {
    const { library, home, env } = setup();
    fs.mkdirSync(path.join(home, 'ui'), { mode: 0o700 });
    const socket = linkSocketPath(home, library)!;
    const impostor = http.createServer((_req, res) => res.end('{"url":"http://evil.example/?token=1","library":"x"}'));
    await new Promise<void>((resolve) => impostor.listen(socket, resolve));
    try {
      const ui = await serve(library, env);
      expect(ui.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // The impostor still holds the socket: this server offers no channel rather than take it.
      expect(await saysOnStderr(ui, 'another bourdon ui answers')).toContain('another bourdon ui answers');
    } finally {
      await new Promise<void>((resolve) => impostor.close(() => resolve()));
    }
  }, 60_000);
});
