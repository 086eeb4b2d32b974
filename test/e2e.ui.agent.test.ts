/**
 * `bourdon ui`'s Agent view end to end: one agent's entities (paged), newest sessions and notes,
 * reached from the Agents list, a search result and the Activity timeline; a hostile entity name
 * shown escaped; secret values redacted; the level filter; the session and the status codes.
 * The real command on a temp library, driven by headless Chromium (playwright-core).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { tempDir } from './helpers/fixtures.js';
import {
  chromiumMissing,
  rawRequest,
  removeAll,
  signedInBrowser,
  type BrowserSession,
  type RunningUi,
} from './helpers/ui.js';

const HOSTILE_NAME = '<script>window.pwned=1</script>\u202eevil';
const SECRET = 'sk-proj-Zq8yX3wV5uT7sR9qP1oN2m';

function writeLibrary(): { library: string; home: string } {
  const library = tempDir('bourdon-ui-agent-');
  const home = tempDir('bourdon-ui-agent-home-');
  fs.mkdirSync(path.join(library, 'agents'));
  const entities = Array.from({ length: 120 }, (_, i) => {
    const n = String(i + 1).padStart(3, '0');
    return `- name: Widget ${n}\n  type: module\n  summary: Part ${n} of the widget.\n  visibility: ${i % 2 ? 'team' : 'public'}`;
  });
  fs.writeFileSync(
    path.join(library, 'agents', 'busy.l5.yaml'),
    [
      "spec_version: '0.1'",
      'agent: {id: busy, type: code-assistant}',
      'known_entities:',
      ...entities,
      'recent_sessions:',
      "- {date: '2026-06-03', cwd: /home/u/busy, project_focus: [Orchard], key_actions: [Pruned the quince trees], visibility: public}",
      "- {date: '2026-06-02', cwd: /home/u/tax, project_focus: [Taxes], key_actions: [Tax prep for June], visibility: private}",
      'notes:',
      `- {date: '2026-06-03', title: Key rotation, text: 'Rotated the staging key OPENAI_API_KEY=${SECRET} today', visibility: public}`,
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(library, 'agents', 'mallory.l5.yaml'),
    [
      "spec_version: '0.1'",
      'agent: {id: mallory, type: other}',
      'known_entities:',
      `- name: ${JSON.stringify(HOSTILE_NAME)}`,
      `  summary: ${JSON.stringify('<img src=x onerror="window.pwned=2">')}`,
      '',
    ].join('\n'),
  );
  return { library, home };
}

const missing = chromiumMissing();

describe.skipIf(missing !== null)(`bourdon ui: the Agent view${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let setup: { library: string; home: string };
  let browser: BrowserSession | undefined;
  let ui: RunningUi;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    setup = writeLibrary();
    browser = await signedInBrowser(setup.library, { BOURDON_HOME: setup.home });
    ({ ui, context, page } = browser);
  }, 60_000);

  afterAll(async () => {
    if (browser) expect(await browser.close()).toBe(0);
    removeAll(setup.library, setup.home);
  });

  it('the Agents list opens an agent: its entities (50 a page, said on the page), sessions and notes', async () => {
    await page.goto(`${ui.base}/`);
    await Promise.all([page.waitForURL(/\/agent\?agent=busy$/), page.click('tr[data-agent="busy"] th a')]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Agent busy');
    expect(await page.locator('nav [aria-current="page"]').textContent()).toBe('Agents');
    expect(await page.locator('#entities tbody tr').count()).toBe(50);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toMatch(/Entities 1–50 of 120/);
    expect(main).toMatch(/Page 1\s+of\s+3/);
    expect(main).toContain('Pruned the quince trees');
    expect(main).toContain('Tax prep for June'); // a private session: the page defaults to private
    expect(main).toContain('Key rotation');
    // The history is one link away.
    expect(await page.locator('main a[href$="/history?agent=busy"]').count()).toBe(1);
    await Promise.all([page.waitForURL(/page=2/), page.click('a[rel="next"]')]);
    await expect(page.locator('#entities tbody tr').first().getAttribute('data-entity')).resolves.toBe('Widget 051');
    expect(await page.locator('main').textContent()).toMatch(/Entities 51–100 of 120/);
  });

  it('a secret value in a note or a summary is redacted as every read redacts it; the prose is kept', async () => {
    await page.goto(`${ui.base}/agent?agent=busy`);
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(await page.locator('#notes').textContent()).toContain('Rotated the staging key');
  });

  it('the level filter hides the rows above it', async () => {
    await page.goto(`${ui.base}/agent?agent=busy`);
    await Promise.all([page.waitForURL(/level=public/), page.selectOption('select[name="level"]', 'public')]);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toMatch(/Entities 1–50 of 60/);
    expect(main).not.toContain('Tax prep for June');
    expect(main).toContain('Pruned the quince trees');
  });

  it('a hostile entity name is shown escaped: no script runs, the bidi override is visible', async () => {
    await page.goto(`${ui.base}/agent?agent=mallory`);
    const name = (await page.locator('#entities tbody th').textContent()) ?? '';
    expect(name).toContain('<script>window.pwned=1</script>\\u202eevil');
    expect(name).not.toContain('\u202e');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    const raw = await page.content();
    expect(raw).toContain('&lt;script&gt;window.pwned=1&lt;/script&gt;\\u202eevil');
  });

  it('a search result and the Activity timeline link to the agent that holds the row', async () => {
    await page.goto(`${ui.base}/search?q=quince`);
    await Promise.all([
      page.waitForURL(/\/agent\?agent=busy$/),
      page.locator('.result[data-kind="session"] h2 a').first().click(),
    ]);
    await page.goto(`${ui.base}/search?q=${encodeURIComponent('Widget 007')}`);
    await Promise.all([
      page.waitForURL(/\/agent\?agent=busy$/),
      page.locator('.result[data-kind="entity"] .agents a').first().click(),
    ]);
    await page.goto(`${ui.base}/search?q=rotation`);
    await Promise.all([
      page.waitForURL(/\/agent\?agent=busy$/),
      page.locator('.result[data-kind="note"] .agents a').first().click(),
    ]);
    await page.goto(`${ui.base}/activity?since=2026-01-01`);
    await Promise.all([
      page.waitForURL(/\/agent\?agent=busy$/),
      page.locator('.timeline li.session strong a').first().click(),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Agent busy');
  });

  it('answers 401 without the session, 404 for an unknown agent and 400 without one', async () => {
    const anonymous = await rawRequest(ui.port, { path: `${ui.prefix}/agent?agent=busy` });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).not.toContain('Widget');
    const cookies = await context.cookies(`${ui.base}/`);
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const unknown = await rawRequest(ui.port, { path: `${ui.prefix}/agent?agent=nosuch`, headers: { Cookie: cookie } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('no readable agent nosuch');
    const none = await rawRequest(ui.port, { path: `${ui.prefix}/agent`, headers: { Cookie: cookie } });
    expect(none.status).toBe(400);
  });
});
