/**
 * What an export reads (issue 41, item 1), attacked as a hostile repository would: an export
 * run in its folder falls back to its `./claude-brain` and reads its `./.mcp.json`. Links there
 * to the user's ~/.pgpass, ~/.kube/config and ~/.docker/config.json, and a config naming a graph
 * elsewhere in the home, must publish nothing; each refusal is one warning naming the file.
 * A brain folder that is itself a link (kept in a synced drive) still works, and so does a
 * file given explicitly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';

const PGPASS = 'db.example.com:5432:app:admin:PgpassSecret42';
const KUBE = 'client-key-data: S3VCRS1LRVktREFUQS1TRUNSRVQ=';
const DOCKER = '{"auths": {"ghcr.io": {"auth": "RE9DS0VSLUFVVEgtU0VDUkVU"}}}';
const GRAPH_SECRET = 'Graph outside the repository';

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function graphLine(name: string): string {
  return JSON.stringify({ type: 'entity', name, entityType: 'project', observations: [`${name}.`] }) + '\n';
}

/** A home with credentials in it, and a hostile repository inside it (so the home bound alone does not help). */
function hostileSetup() {
  const root = tempDir('bourdon-hostile-repo-');
  const home = path.join(root, 'home');
  write(path.join(home, '.pgpass'), `${PGPASS}\n`);
  write(path.join(home, '.kube', 'config'), `users:\n- name: me\n  user:\n    ${KUBE}\n`);
  write(path.join(home, '.docker', 'config.json'), `${DOCKER}\n`);
  write(path.join(home, 'private', 'graph.jsonl'), graphLine(GRAPH_SECRET));

  const repo = path.join(root, 'home', 'src', 'evil-repo');
  const log = path.join(repo, 'claude-brain', 'LOG');
  fs.mkdirSync(log, { recursive: true });
  fs.symlinkSync('../../../../.pgpass', path.join(log, '2026-12-01-notes.md'));
  fs.symlinkSync(path.join(home, '.kube', 'config'), path.join(log, '2026-12-02-kube.md'));
  write(path.join(repo, 'claude-brain', 'LOG', '2026-12-03-real.md'), 'Shipped the parser.\n');
  fs.mkdirSync(path.join(repo, 'claude-brain', 'PROJECTS'), { recursive: true });
  fs.symlinkSync(path.join(home, '.docker'), path.join(repo, 'claude-brain', 'PROJECTS', 'Registry'));
  fs.symlinkSync(path.join(home, '.docker', 'config.json'), path.join(home, '.docker', 'OVERVIEW.md'));
  // The repository's MCP config names a graph outside it, and one inside it.
  write(
    path.join(repo, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        outside: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: path.join(home, 'private', 'graph.jsonl') },
        },
        inside: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: path.join(repo, 'data', 'graph.jsonl') },
        },
      },
    }),
  );
  write(path.join(repo, 'data', 'graph.jsonl'), graphLine('Graph inside the repository'));
  return { root, home, repo };
}

const SECRETS = ['PgpassSecret42', 'S3VCRS1LRVktREFUQS1TRUNSRVQ', 'RE9DS0VSLUFVVEgtU0VDUkVU', GRAPH_SECRET];

describe('an export run in a hostile repository', () => {
  it('claude-code: links in ./claude-brain to files outside it are refused, one warning each; the rest is exported', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'claude-code.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: repo,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).toContain('Shipped the parser.');
    const warnings = result.stderr.trim().split('\n');
    for (const name of ['2026-12-01-notes.md', '2026-12-02-kube.md', path.join('PROJECTS', 'Registry')]) {
      expect(warnings.filter((line) => line.includes(name) && line.includes('skipped'))).toHaveLength(1);
    }
    for (const line of warnings) expect(line).not.toContain('\n');
  });

  it('mcp-memory: ./.mcp.json may name a graph inside the repository, not one elsewhere', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'mcp-memory.yaml');
    const result = await runCli(['mcp-memory', 'export', '--out', out], {
      env: { HOME: home, MEMORY_FILE_PATH: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: repo,
    });
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(out, 'utf8');
    expect(text).not.toContain(GRAPH_SECRET);
    expect(text).toContain('Graph inside the repository');
    const refusals = result.stderr.split('\n').filter((line) => line.includes(path.join('private', 'graph.jsonl')));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/skipped, .*\.mcp\.json names it but it lies outside the working folder/);
  });

  it('the same graph given explicitly (--file) is read', async () => {
    const { root, home, repo } = hostileSetup();
    const out = path.join(root, 'explicit.yaml');
    const result = await runCli(
      ['mcp-memory', 'export', '--file', path.join(home, 'private', 'graph.jsonl'), '--out', out],
      { env: { HOME: home, SOURCE_DATE_EPOCH: '1764806400' }, cwd: repo },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain(GRAPH_SECRET);
  });

  it('a brain folder that is itself a link (a synced drive outside the home) still works', async () => {
    const root = tempDir('bourdon-synced-brain-');
    const home = path.join(root, 'home');
    const drive = path.join(root, 'drive', 'brain');
    write(path.join(drive, 'LOG', '2026-12-01-sync.md'), 'Synced brain entry.\n');
    fs.mkdirSync(home, { recursive: true });
    fs.symlinkSync(drive, path.join(home, 'claude-brain'));
    const out = path.join(root, 'out.yaml');
    const result = await runCli(['claude-code', 'export', '--out', out], {
      env: { HOME: home, CLAUDE_BRAIN: undefined, SOURCE_DATE_EPOCH: '1764806400' },
      cwd: root,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('Synced brain entry.');
    expect(result.stderr).toBe('');
  });
});
