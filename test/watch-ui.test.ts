/**
 * The page follows the watch (issue 53): `bourdon ui`'s Agents view says whether a watch is
 * running on the library and when each agent was last exported, and an export the watch makes
 * while the page is open shows on the next navigation, with no restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { rawRequest, startUi, type RunningUi } from './helpers/ui.js';
import { memoryFile, startWatch, writeFile, type RunningWatch } from './helpers/watch.js';

let ui: RunningUi | null = null;
let watch: RunningWatch | null = null;
afterEach(async () => {
  if (watch && watch.child.exitCode === null) await watch.stop('SIGKILL');
  if (ui) await ui.stop();
  ui = null;
  watch = null;
});

describe('bourdon ui: the watch and each agent’s last export', () => {
  it('shows the watch not running, then running with the export it made, on the next navigation', async () => {
    const home = tempDir('bourdon-watch-ui-home-');
    const library = path.join(home, 'agent-library');
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    const env = { HOME: home, BOURDON_HOME: path.join(home, '.bourdon') };
    writeFile(path.join(home, '.cascade-bourdon', 'memory.md'), memoryFile(['Alpha']));
    ui = await startUi(library, env);
    const token = new URL(ui.url).search;
    const first = await rawRequest(ui.port, { path: `${ui.prefix}/${token}` });
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    const page = async () => (await rawRequest(ui!.port, { path: `${ui!.prefix}/`, headers: { Cookie: cookie } })).body;

    const before = await page();
    expect(before).toMatch(/Watch: <span class="badge warn">not running<\/span>/);
    expect(before).toContain('bourdon watch --install');
    expect(before).not.toContain('data-agent="cascade"');

    watch = startWatch(['--library', library], env);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    const after = await page();
    expect(after).toMatch(/Watch: <span class="badge ok">running<\/span>/);
    expect(after).toContain('in a terminal');
    const row = /<tr data-agent="cascade">[\s\S]*?<\/tr>/.exec(after)?.[0] ?? '';
    expect(row).toMatch(/data-label="Last export">\s*<time datetime="\d{4}-/);
  }, 90_000);
});
