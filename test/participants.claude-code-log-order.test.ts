/**
 * claude-code's brain logs of the same day come in the file system's listing order, as the
 * engine's: its `_parse_logs_dir` walks `LOG/` with `glob("*.md")`, unsorted, then sorts by the
 * date in the name with a stable sort. The recorded cases have one log a day and do not show
 * it; `npm run bench:engine` found it on 100 logs over 28 days. Python (the reference reader)
 * lists the same folder here, and our sessions must come in the order the engine's rule gives.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const home = tempDir('bourdon-log-order-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
const log = path.join(home, 'claude-brain', 'LOG');

/** The engine's order, by its rule, from Python's own listing of the folder. */
function engineOrder(): string[] {
  const script = String.raw`
import json, sys
from pathlib import Path
found = [(f.name[:10], f.name) for f in Path(sys.argv[1]).glob("*.md")]
found.sort(key=lambda t: t[0], reverse=True)
print(json.dumps(["LOG/" + name for _, name in found[:100]]))
`;
  return JSON.parse(execFileSync('python3', ['-c', script, log], { encoding: 'utf8' })) as string[];
}

describe('claude-code keeps the file system listing order for logs of the same day, as the engine does', () => {
  it('sessions of one day come in the order Python lists their files', async () => {
    fs.mkdirSync(log, { recursive: true });
    // 90 logs over 3 days, named so that creation, name and hash order all differ.
    for (let n = 0; n < 90; n += 1)
      fs.writeFileSync(path.join(log, `2026-04-0${1 + (n % 3)}-m${(n * 37) % 101}.md`), `Log ${n}.\n`);
    const expected = engineOrder();
    expect(expected).toHaveLength(90);
    // The case shows the rule only when listing order is not name order here.
    const byName = [...expected].sort((a, b) =>
      a.slice(4, 14) === b.slice(4, 14) ? (a < b ? 1 : -1) : a < b ? 1 : -1,
    );
    expect(expected).not.toEqual(byName);

    const out = path.join(home, 'out.l5.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined },
      cwd: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as { recent_sessions: { files_touched?: string[] }[] };
    expect(manifest.recent_sessions.map((session) => session.files_touched?.[0])).toEqual(expected);
  });
});
