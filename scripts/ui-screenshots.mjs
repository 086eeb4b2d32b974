// Saves a screenshot of each `bourdon ui` view under docs/ui/ (or the folder given), at 1280 px
// and at 390 px wide (`<name>-narrow.png`), on the demo library with one staged write, a short
// history with a rollback, and an audit log. Needs Debian's chromium (/usr/bin/chromium) and a build.
//   npm run build && node scripts/ui-screenshots.mjs [out-dir]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'run.js');
const out = path.resolve(process.argv[2] ?? path.join(root, 'docs', 'ui'));
// Further arguments name the views to take (`… docs/ui agent`); none: every view.
const only = process.argv.slice(3);
const { installDemoLibrary } = await import(path.join(root, 'dist', 'core', 'admin', 'demo-library.js'));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-shots-'));
const library = installDemoLibrary(path.join(tmp, 'library'));
const home = path.join(tmp, 'home');
fs.mkdirSync(home);
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  BOURDON_HOME: home,
  NO_COLOR: '1',
  BOURDON_LOCAL_NAME: 'demo',
};
const day = (ago) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
const cli = (args, input = '') => {
  const result = spawnSync(process.execPath, [bin, ...args, '--library', library], { env, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`bourdon ${args.join(' ')}: ${result.stderr}`);
};
cli(
  ['commit', 'codex', '--file', '-'],
  JSON.stringify({
    entities: [{ name: 'Release Train', type: 'project', summary: 'Weekly releases on Thursdays.' }],
    sessions: [{ date: day(0), cwd: '/home/me/shop', project_focus: ['Checkout'], key_actions: ['Cut release 2.4'] }],
  }),
);
cli(['note', 'add', 'codex', 'Release frozen until Friday', '--tag', 'release']);
fs.mkdirSync(path.join(library, 'staging', 'laptop'), { recursive: true });
fs.writeFileSync(
  path.join(library, 'staging', 'laptop', 'cursor.l5.yaml'),
  `spec_version: '0.1'\nagent:\n  id: cursor\n  type: code-assistant\nknown_entities:\n- name: Payment Retries\n  type: ticket\n  summary: Retry failed card payments twice before giving up.\nrecent_sessions:\n- date: '${day(0)}'\n  cwd: /home/me/shop\n  project_focus:\n  - Checkout\n  key_actions:\n  - Added retry with backoff\n`,
);
fs.appendFileSync(
  path.join(home, 'audit.jsonl'),
  [
    {
      ts: new Date(Date.now() - 3600_000).toISOString(),
      agent: 'laptop',
      op: 'find_entity',
      namespace: '*',
      decision: 'allow',
    },
    {
      ts: new Date(Date.now() - 1800_000).toISOString(),
      agent: 'laptop',
      op: 'commit_to_federation',
      namespace: 'cursor',
      decision: 'allow',
      detail: 'staged',
    },
    {
      ts: new Date().toISOString(),
      agent: 'openclaw',
      op: 'rollback_agent_memory',
      namespace: 'codex',
      decision: 'deny',
      detail: "tier 'quarantined' may not call this tool",
    },
  ]
    .map((r) => JSON.stringify(r) + '\n')
    .join(''),
);

cli(['rollback', 'codex', '1', '--yes', '--reason', 'the release train entry was premature']);

const server = spawn(process.execPath, [bin, 'ui', '--library', library, '--port', '0'], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve) => {
  let text = '';
  server.stdout.on('data', (chunk) => {
    text += chunk;
    const match = /http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/\?token=[0-9a-f]+/.exec(text);
    if (match) resolve(match[0]);
  });
});
const base = url.slice(0, url.indexOf('/?token='));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-shots-profile-'));
const args = [
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
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  args,
  viewport: { width: 1280, height: 800 },
});
try {
  const page = await context.newPage();
  await page.goto(url);
  const views = [
    ['agents', '/'],
    ['activity', `/activity?since=${day(13)}`],
    ['workstreams', '/workstreams'],
    ['staging', '/staging'],
    ['agent', '/agent?agent=codex'],
    ['history', '/history?agent=codex'],
    ['audit', '/audit'],
    ['search', '/search?q=sync%20engine'],
    ['staging-confirm', '/staging/confirm?action=promote&agent=cursor'],
  ];
  fs.mkdirSync(out, { recursive: true });
  for (const [width, suffix] of [
    [1280, ''],
    [390, '-narrow'],
  ]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [name, view] of views) {
      if (only.length && !only.includes(name)) continue;
      await page.goto(`${base}${view}`);
      await page.screenshot({ path: path.join(out, `${name}${suffix}.png`), fullPage: true });
    }
  }
} finally {
  await context.close();
  server.kill('SIGINT');
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}
