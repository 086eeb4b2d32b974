/**
 * "Listing order" is the file system's (issue 55, item 1): the engine's copilot_vscode walks
 * workspaces with `iterdir()` and transcripts with `glob()`, unsorted, then sorts by startTime
 * with a stable sort, so transcripts that start at the same instant keep the order the file
 * system lists them in. The recorded cases are too small to show it; a home of 60 workspaces
 * whose transcripts share start times does. Python (the reference reader) lists the same
 * folders, and the sessions our export writes must come in the order the engine's rule gives.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const home = tempDir('bourdon-listing-order-');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

const storage = path.join(home, '.config', 'Code', 'User', 'workspaceStorage');
/** Three start times for 180 transcripts: ties everywhere. */
const startOf = (n: number) => `2026-04-0${1 + (n % 3)}T10:00:00.000Z`;

function transcript(id: string, n: number): string {
  const start = { type: 'session.start', data: { sessionId: id, startTime: startOf(n), producer: 'copilot-agent' } };
  const message = { type: 'user.message', data: { content: `transcript ${n}` } };
  return `${JSON.stringify(start)}\n${JSON.stringify(message)}\n`;
}

/** The engine's order, by its rule, from Python's own listing of the same folders. */
function engineOrder(): string[] {
  const script = String.raw`
import json, sys
from pathlib import Path
found = []
for ws in Path(sys.argv[1]).iterdir():
    chat = ws / "GitHub.copilot-chat"
    if not chat.is_dir():
        continue
    for f in (chat / "transcripts").glob("*.jsonl"):
        lines = f.read_text().strip().splitlines()
        start = json.loads(lines[0])["data"]["startTime"]
        first = json.loads(lines[1])["data"]["content"]
        found.append((start, first))
found.sort(key=lambda t: t[0], reverse=True)
print(json.dumps([first for _, first in found]))
`;
  return JSON.parse(execFileSync('python3', ['-c', script, storage], { encoding: 'utf8' })) as string[];
}

describe('copilot-vscode keeps the file system listing order for ties, as the engine does', () => {
  it('sessions that start at the same instant come in the order Python lists their folders and files', async () => {
    let n = 0;
    // Names whose creation order, sorted order and hash order all differ.
    for (let w = 0; w < 60; w += 1) {
      const workspace = path.join(storage, `${((w * 7919) % 1000).toString(16).padStart(3, '0')}ws${w}`);
      const transcripts = path.join(workspace, 'GitHub.copilot-chat', 'transcripts');
      fs.mkdirSync(transcripts, { recursive: true });
      for (let t = 0; t < 3; t += 1, n += 1)
        fs.writeFileSync(path.join(transcripts, `${(n * 31) % 97}-${n}.jsonl`), transcript(`s${n}`, n));
    }
    const expected = engineOrder();
    expect(expected).toHaveLength(180);
    // The case shows the rule only when listing order is not name order here.
    const sortedNames = [...expected].sort();
    expect(expected).not.toEqual(sortedNames);

    const out = path.join(home, 'out.l5.yaml');
    const result = await runCli(['copilot-vscode', 'export', '--out', out], {
      env: { HOME: home, XDG_CONFIG_HOME: undefined, COPILOT_VSCODE_STORAGE: undefined },
      cwd: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const manifest = yaml.load(fs.readFileSync(out, 'utf8')) as { recent_sessions: { key_actions?: string[] }[] };
    const firstActions = manifest.recent_sessions.map((session) => (session.key_actions ?? [])[0] ?? '');
    expect(firstActions.map((action) => /transcript \d+/.exec(action)?.[0])).toEqual(expected);
  });
});
