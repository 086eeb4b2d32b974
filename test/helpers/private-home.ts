/**
 * vitest globalSetup: the run gets a HOME of its own, with BOURDON_HOME inside it, inherited by
 * the workers and every process they spawn, so no test reads or writes the user's own folders
 * (an export reading the real ~/.claude, caches and audit lines under ~/.bourdon, Chromium's
 * profile under ~/.config, the MCP inspector's ~/.mcp-inspector). Variables that point Bourdon or
 * a participant somewhere (BOURDON_*, CODEX_HOME, XDG_*, …) are cleared for the run. The run
 * fails if anything appeared in the user's real home, or changed in their Bourdon folders,
 * while it ran.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Variables a user may export that would send a test's reads or writes to their own folders.
 * BOURDON_TEST_* configure the run itself (BOURDON_TEST_PYTHON: a python with the `mcp` client)
 * and are kept.
 */
const CLEARED =
  /^((?!BOURDON_TEST_)BOURDON_|XDG_|CLAUDE_|CODEX_HOME$|CURSOR_|COPILOT_|OPENCLAW_|MEMORY_FILE_PATH$|APPDATA$)/;

/** Every entry under `root` with its size and mtime ("" when root does not exist). */
function snapshot(root: string): string {
  if (!fs.existsSync(root)) return '';
  const lines: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const stat = fs.lstatSync(full);
      lines.push(`${path.relative(root, full)} ${stat.size} ${stat.mtimeMs}`);
      if (entry.isDirectory() && depth < 6) walk(full, depth + 1);
    }
  };
  walk(root, 0);
  return lines.sort().join('\n');
}

export default function setup(): () => void {
  const saved = { ...process.env };
  const realHome = os.homedir();
  const watched = [
    process.env.BOURDON_HOME || path.join(realHome, '.bourdon'),
    path.join(realHome, 'agent-library'),
    path.join(realHome, '.config', 'chromium'),
    path.join(realHome, '.mcp-inspector'),
  ];
  const before = watched.map(snapshot);
  const topBefore = new Set(fs.existsSync(realHome) ? fs.readdirSync(realHome) : []);

  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-vitest-home-'));
  // A user's git identity, as sync's commits expect one (and the test repositories' commits need).
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Bourdon tests\n\temail = tests@bourdon.invalid\n');
  for (const name of Object.keys(process.env)) if (CLEARED.test(name)) delete process.env[name];
  // npm's package cache is npm's, not the user's data: the install test reuses it (offline-first).
  process.env.npm_config_cache ??= path.join(realHome, '.npm');
  process.env.HOME = home;
  // No command a test runs on a terminal waits in a pager (src/cli/pager.ts).
  process.env.PAGER = 'cat';
  process.env.BOURDON_HOME = path.join(home, '.bourdon');

  return () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    fs.rmSync(home, { recursive: true, force: true });
    const changed = watched.filter((dir, i) => snapshot(dir) !== before[i]);
    const appeared = (fs.existsSync(realHome) ? fs.readdirSync(realHome) : []).filter((name) => !topBefore.has(name));
    const problems = [
      ...changed.map((dir) => `${dir} changed`),
      ...appeared.map((name) => `${path.join(realHome, name)} appeared`),
    ];
    if (problems.length > 0)
      throw new Error(
        `tests touched the user's own folders (they run under a HOME of their own): ${problems.join('; ')}`,
      );
  };
}
