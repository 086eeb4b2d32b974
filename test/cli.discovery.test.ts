/**
 * Order and discovery (issue 54, item 7): `agents` keeps one stated order, a bare `bourdon`
 * names the commands that set a library up and fill it, `mcp-memory export` with no source says
 * where it looked, and an interactive rollback asks for the reason its history records.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';

const ENTER = '\r';

function manifest(id: string, sessionDay: string | null): string {
  return [
    'spec_version: "0.1"',
    `agent: {id: ${id}, type: code-assistant}`,
    'last_updated: "2026-11-30T10:00:00Z"',
    ...(sessionDay ? ['recent_sessions:', `  - {date: "${sessionDay}", key_actions: [work]}`] : []),
    '',
  ].join('\n');
}

function library(): string {
  const root = tempDir('bourdon-discovery-');
  fs.mkdirSync(path.join(root, 'agents'));
  // Neither the name order nor the files' order is the order by last session.
  for (const [id, day] of [
    ['alpha', '2026-10-01'],
    ['zulu', '2026-11-20'],
    ['mike', null],
    ['bravo', '2026-11-25'],
  ] as const)
    fs.writeFileSync(path.join(root, 'agents', `${id}.l5.yaml`), manifest(id, day));
  return root;
}

describe('order and discovery', () => {
  it('agents lists by last session, newest first, agents without one after; and says so in --help', async () => {
    const root = library();
    const result = await runCli(['agents', '--library', root]);
    expect(result.code, result.stderr).toBe(0);
    const ids = result.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[0]);
    expect(ids).toEqual(['bravo', 'zulu', 'alpha', 'mike']);
    const help = await runCli(['agents', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('by last session, newest first');
  });

  it('a bare `bourdon` names init and export-all', async () => {
    const result = await runCli([]);
    expect(result.stdout).toMatch(/^ {2}init\s/m);
    expect(result.stdout).toMatch(/^ {2}export-all\s/m);
  });

  it('mcp-memory export with no source says skipped and where it looked', async () => {
    const home = tempDir('bourdon-discovery-home-');
    const result = await runCli(['mcp-memory', 'export', '--library', path.join(home, 'lib')], {
      env: { HOME: home },
      cwd: home,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toMatch(
      /^skipped mcp-memory: no source found \(looked for --file and \$MEMORY_FILE_PATH \(not set\), a memory server in the MCP hosts' configs .*\); nothing written $/,
    );
  });

  it('an interactive rollback asks for the reason, and the history records it', async () => {
    const root = library();
    const home = tempDir('bourdon-discovery-config-');
    const env = { BOURDON_HOME: home, NO_COLOR: '1' };
    for (const text of ['first', 'second']) {
      const added = await runCli(['note', 'add', 'alpha', text, '--library', root], { env });
      expect(added.code, added.stderr).toBe(0);
    }
    const result = await runInPty(
      ['rollback', 'alpha', '1', '--library', root],
      [
        { expect: /Restore alpha to version 1[\s\S]*\(y\/N\)/, send: `y${ENTER}` },
        { expect: 'Why?', send: `the second note was wrong${ENTER}` },
      ],
      { env, timeoutMs: 30_000 },
    );
    expect(result.unanswered, stripAnsi(result.output)).toEqual([]);
    expect(result.code, stripAnsi(result.output)).toBe(0);
    const history = JSON.parse((await runCli(['history', 'alpha', '--json', '--library', root], { env })).stdout) as {
      versions: { op: string; reason?: string | null }[];
    };
    expect(history.versions[0]).toMatchObject({ op: 'rollback', reason: 'the second note was wrong' });
  }, 60_000);
});
