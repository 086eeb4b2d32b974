/**
 * Exports as a user runs them, through the real binary: into the library (a version, the audit
 * record, `rollback` undoing it, the read commands answering from it), combined with live
 * commits to the same agent, `--out`/`--print`/`--dry-run`/`--json`, redaction of tokens
 * before anything is written, the mcp-memory file lookup, and export-all's one line per
 * participant that never stops at a failure.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import { runCli, type CliResult } from './helpers/cli.js';
import { runExportCli } from './helpers/export-cli.js';

let root: string;
let home: string;
let library: string;
let bourdonHome: string;

function write(relative: string, text: string): string {
  const file = path.join(home, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function bourdon(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runExportCli({ home, bourdonHome, library }, args, env);
}

function manifest(agent: string): Record<string, unknown> {
  return yaml.load(fs.readFileSync(path.join(library, 'agents', `${agent}.l5.yaml`), 'utf8')) as Record<
    string,
    unknown
  >;
}

function entityNames(doc: Record<string, unknown>): string[] {
  return (doc.known_entities as { name: string }[]).map((entity) => entity.name);
}

function memoryNote(name: string, description: string, extra = ''): string {
  return `---\nname: "${name}"\ntype: project\ndescription: "${description}"\n${extra}---\n\nBody.\n`;
}

beforeEach(() => {
  root = tempDir('bourdon-export-');
  home = path.join(root, 'home');
  library = path.join(root, 'library');
  bourdonHome = path.join(root, 'config');
  fs.mkdirSync(home);
  write('.claude/projects/-work-orchard/memory/MEMORY.md', '# index\n');
  write('.claude/projects/-work-orchard/memory/orchard.md', memoryNote('Orchard', 'Fruit tracker.'));
  write('.claude/projects/-work-kite/memory/MEMORY.md', '# index\n');
  write('.claude/projects/-work-kite/memory/kite.md', memoryNote('Kite', 'Kite simulator.'));
  write('claude-brain/LOG/2026-04-30-laptop.md', 'Shipped the Orchard login fix.\n');
});

describe('an export into the library', () => {
  it('is a version with an audit record, and the read commands answer from it', async () => {
    const result = await bourdon(['claude-code', 'export', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ agent_id: 'claude-code', outcome: 'exported', version: 1, written: true });
    expect(report.counts).toMatchObject({ entities: 2, sessions: 1 });
    // Every project memory folder with a MEMORY.md is read (not only the first).
    expect(entityNames(manifest('claude-code'))).toEqual(['Kite', 'Orchard']);
    const audit = fs
      .readFileSync(path.join(bourdonHome, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(audit).toEqual([
      expect.objectContaining({ op: 'export', namespace: 'claude-code', agent: 'participant:claude-code' }),
    ]);

    const agents = JSON.parse((await bourdon(['agents', '--json'])).stdout);
    expect(JSON.stringify(agents)).toContain('claude-code');
    const find = JSON.parse((await bourdon(['find', 'orchard', '--json'])).stdout);
    expect(find.matches.flatMap((match: { agents: string[] }) => match.agents)).toContain('claude-code');
    const recent = JSON.parse((await bourdon(['recent', '--since', '2026-04-01', '--json'])).stdout);
    expect(recent.sessions.map((session: { key_actions: string[] }) => session.key_actions)).toContainEqual([
      'Shipped the Orchard login fix.',
    ]);
  });

  it('writes no new version when nothing changed, and `rollback` undoes a bad export', async () => {
    expect((await bourdon(['claude-code', 'export'])).code).toBe(0);
    const first = fs.readFileSync(path.join(library, 'agents', 'claude-code.l5.yaml'));
    const again = await bourdon(['claude-code', 'export', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ written: false, version: 1 });
    // A bad edit of the native memory, exported: version 2.
    fs.rmSync(path.join(home, '.claude/projects/-work-kite'), { recursive: true });
    const bad = JSON.parse((await bourdon(['claude-code', 'export', '--json'])).stdout);
    expect(bad).toMatchObject({ written: true, version: 2 });
    expect(entityNames(manifest('claude-code'))).toEqual(['Orchard']);
    const rollback = await bourdon(['rollback', 'claude-code', '1', '--yes']);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(fs.readFileSync(path.join(library, 'agents', 'claude-code.l5.yaml')).equals(first)).toBe(true);
  });

  it('keeps rows a live commit wrote, even when both write at the same time', async () => {
    expect((await bourdon(['claude-code', 'export'])).code).toBe(0);
    const rows = path.join(root, 'rows.json');
    for (let round = 0; round < 3; round += 1) {
      fs.writeFileSync(
        rows,
        JSON.stringify({ entities: [{ name: `Hand written ${round}`, summary: 'From a commit.' }] }),
      );
      // A native change, so that the export really writes a new version.
      write(`.claude/projects/-work-orchard/memory/round${round}.md`, memoryNote(`Round ${round}`, 'Native.'));
      const [commit, exported] = await Promise.all([
        bourdon(['commit', 'claude-code', '--file', rows]),
        bourdon(['claude-code', 'export']),
      ]);
      expect(commit.code, commit.stderr).toBe(0);
      expect(exported.code, exported.stderr).toBe(0);
    }
    // One more export after all commits: every committed row is still there.
    expect((await bourdon(['claude-code', 'export'])).code).toBe(0);
    const names = entityNames(manifest('claude-code'));
    for (let round = 0; round < 3; round += 1) {
      expect(names).toContain(`Hand written ${round}`);
      expect(names).toContain(`Round ${round}`);
    }
    // A row only the export wrote disappears once the native store no longer has it.
    fs.rmSync(path.join(home, '.claude/projects/-work-kite'), { recursive: true });
    expect((await bourdon(['claude-code', 'export'])).code).toBe(0);
    expect(entityNames(manifest('claude-code'))).not.toContain('Kite');
    expect(entityNames(manifest('claude-code'))).toContain('Hand written 0');
  });
});

describe('export flags', () => {
  it('--dry-run writes nothing; --print prints the YAML; --out writes only that file', async () => {
    const dry = await bourdon(['claude-code', 'export', '--dry-run', '--print']);
    expect(dry.code, dry.stderr).toBe(0);
    expect((yaml.load(dry.stdout) as { agent: { id: string } }).agent.id).toBe('claude-code');
    expect(fs.existsSync(library)).toBe(false);
    const out = path.join(root, 'out', 'cc.yaml');
    const written = await bourdon(['claude-code', 'export', '--out', out, '--json']);
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({ path: out, outcome: 'exported' });
    expect(fs.existsSync(out)).toBe(true);
    expect(fs.existsSync(library)).toBe(false);
  });

  it('refuses a --since that is not a date, and a malformed SOURCE_DATE_EPOCH, as usage errors', async () => {
    const since = await bourdon(['claude-code', 'export', '--since', 'yesterday-ish', '--dry-run']);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/^bourdon: Parsing --since: expected YYYY-MM-DD, .* not "yesterday-ish"/);
    const epoch = await bourdon(['claude-code', 'export', '--dry-run'], { SOURCE_DATE_EPOCH: 'soon' });
    expect(epoch.code).toBe(2);
  });

  it('says its outcome in the same word in --json and on its line: exported, then unchanged', async () => {
    const first = await bourdon(['claude-code', 'export', '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ outcome: 'exported', written: true, staged: false });
    const again = await bourdon(['claude-code', 'export', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'unchanged', written: false, staged: false, version: 1 });
    const text = await bourdon(['claude-code', 'export']);
    expect(text.stdout).toMatch(/^unchanged claude-code: /);
    const dry = await bourdon(['claude-code', 'export', '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toMatchObject({ outcome: 'dry-run', written: false });
    expect((await bourdon(['claude-code', 'export', '--dry-run'])).stdout).toMatch(/^dry-run claude-code: /);
  });

  it('says once that there is no source, naming where it looked; --json lists every source', async () => {
    // codex looks for nine sources, seven of them inside ~/.codex: the missing folder stands for them.
    const codex = await bourdon(['codex', 'export', '--out', path.join(root, 'codex.yaml')]);
    expect(codex.code, codex.stderr).toBe(0);
    expect(codex.stderr).toBe('');
    expect(codex.stdout).toBe(
      `skipped codex: no source found (looked for ${path.join(home, '.codex')}, ${path.join(home, 'codex-brain')}); nothing written\n`,
    );
    // One source, missing under a ~/.claude that exists: named as it is.
    const automations = await bourdon(['claude-code-automations', 'export', '--out', path.join(root, 'cca.yaml')]);
    expect(automations.code, automations.stderr).toBe(0);
    expect(automations.stderr).toBe('');
    expect(automations.stdout).toBe(
      `skipped claude-code-automations: no source found (looked for ${path.join(home, '.claude', 'automations')}); nothing written\n`,
    );
    // In an 80-column terminal that one line wraps (each part indented under it), and nothing else is said.
    const narrow = await bourdon(['codex', 'export', '--out', path.join(root, 'codex.yaml')], { COLUMNS: '80' });
    expect(narrow.stderr).toBe('');
    expect(narrow.stdout.split('\n').every((line) => line.length <= 80)).toBe(true);
    expect(narrow.stdout.replaceAll('\n  ', ' ')).toBe(codex.stdout);
    const json = await bourdon(['codex', 'export', '--out', path.join(root, 'codex.yaml'), '--json']);
    const report = JSON.parse(json.stdout) as { outcome: string; sources: { found: boolean }[]; warnings: string[] };
    expect(report).toMatchObject({ outcome: 'skipped', reason: 'no source found', written: false, warnings: [] });
    expect(report.sources).toHaveLength(9);
    expect(fs.existsSync(path.join(root, 'codex.yaml'))).toBe(false);
  });

  it('names a participant this build does not have in one line', async () => {
    const result = await bourdon(['codex', 'export', '--dry-run']);
    if (result.code === 0) return; // registered since: nothing to check here
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('redaction before writing', () => {
  it('a token in a memory file, a log or the graph never reaches the written manifest', async () => {
    const tokens = ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'sk-proj-abcdefghij0123456789', 'AKIAABCDEFGHIJKLMNOP'];
    write('.claude/projects/-work-orchard/memory/deploy.md', memoryNote('Deploy', `use ${tokens[0]} to push`));
    write('.claude/projects/-work-orchard/memory/notes.md', `# Notes\n\nexport OPENAI_KEY=${tokens[1]}\n`);
    write('claude-brain/LOG/2026-04-29.md', `Rotated ${tokens[2]} today.\n`);
    write(
      'claude-memory/memory.jsonl',
      JSON.stringify({ type: 'entity', name: 'Vault', entityType: 'service', observations: [`key ${tokens[0]}`] }) +
        '\n',
    );
    const result = await bourdon(['claude-code', 'export']);
    expect(result.code, result.stderr).toBe(0);
    const text = fs.readFileSync(path.join(library, 'agents', 'claude-code.l5.yaml'), 'utf8');
    for (const token of tokens) expect(text).not.toContain(token);
    for (const file of fs.readdirSync(path.join(library, 'history', 'claude-code')))
      for (const token of tokens)
        expect(fs.readFileSync(path.join(library, 'history', 'claude-code', file), 'utf8')).not.toContain(token);
    // The value is replaced where it stands; the note around it is kept.
    expect(text).toContain('use [redacted] to push');
    expect(entityNames(manifest('claude-code'))).toContain('Deploy');
  });
});

describe('mcp-memory', () => {
  const graph = (name: string) =>
    [
      { type: 'entity', name, entityType: 'project', observations: ['A project.', 'Second.', 'Third.'] },
      { type: 'entity', name: 'Ada Lovelace', entityType: 'person', observations: ['A person.'] },
      { type: 'relation', from: 'Ada Lovelace', to: name, relationType: 'maintains' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n') + '\n';

  it('finds the graph from a host config, and --file and MEMORY_FILE_PATH win over it', async () => {
    const configured = write('data/configured.jsonl', graph('Configured'));
    write(
      '.cursor/mcp.json',
      JSON.stringify({
        mcpServers: {
          memory: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-memory'],
            env: { MEMORY_FILE_PATH: configured },
          },
        },
      }),
    );
    const fromConfig = await bourdon(['mcp-memory', 'export', '--print', '--dry-run']);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    const doc = yaml.load(fromConfig.stdout) as Record<string, unknown>;
    expect(entityNames(doc)).toEqual(['Configured']); // the person is private: never exported
    expect(doc.known_entities).toEqual([
      { name: 'Configured', type: 'project', summary: 'A project. | Second.', tags: ['project'] },
    ]);

    const named = write('data/named.jsonl', graph('Named'));
    const fromEnv = await bourdon(['mcp-memory', 'export', '--print', '--dry-run'], { MEMORY_FILE_PATH: named });
    expect(entityNames(yaml.load(fromEnv.stdout) as Record<string, unknown>)).toEqual(['Named']);
    const flagged = write('data/flag.jsonl', graph('Flagged'));
    const fromFlag = await bourdon(['mcp-memory', 'export', '--print', '--dry-run', '--file', flagged], {
      MEMORY_FILE_PATH: named,
    });
    expect(entityNames(yaml.load(fromFlag.stdout) as Record<string, unknown>)).toEqual(['Flagged']);
    const missing = await bourdon(['mcp-memory', 'export', '--file', path.join(home, 'nope.jsonl')]);
    expect(missing.code).toBe(1); // an export's failure (docs/errors.md)
    expect(missing.stderr).toContain('no such file');
  });
});

describe('export-all', () => {
  it('on a machine without any agent: every participant skipped, exit 0, nothing created', async () => {
    const empty = path.join(root, 'empty-home');
    fs.mkdirSync(empty);
    const result = await runCli(['export-all'], {
      cwd: empty,
      env: { HOME: empty, BOURDON_HOME: bourdonHome, BOURDON_LIBRARY: library },
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatch(/^skipped\s+[a-z-]+: no source$/);
    expect(fs.existsSync(library)).toBe(false);
  });

  it('exports what exists, skips what does not, and reports a failure without stopping', async () => {
    write('claude-memory/memory.jsonl', '');
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    // claude-code's manifest is a symbolic link: the library's write path refuses it.
    fs.symlinkSync(path.join(root, 'elsewhere.yaml'), path.join(library, 'agents', 'claude-code.l5.yaml'));
    const graphFile = write(
      'mem/graph.jsonl',
      JSON.stringify({ type: 'entity', name: 'Solo', observations: [] }) + '\n',
    );
    const result = await bourdon(['export-all', '--json'], { MEMORY_FILE_PATH: graphFile });
    expect(result.code).toBe(1);
    const payload = JSON.parse(result.stdout);
    const outcome = Object.fromEntries(
      payload.results.map((entry: { agent_id: string; outcome: string }) => [entry.agent_id, entry.outcome]),
    );
    expect(outcome['claude-code']).toBe('failed');
    expect(outcome['mcp-memory']).toBe('exported');
    expect(payload.failed).toBe(1);
    expect(entityNames(manifest('mcp-memory'))).toEqual(['Solo']);

    const human = await bourdon(['export-all'], { MEMORY_FILE_PATH: graphFile });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^failed\s+claude-code: .*symbolic link/m);
    expect(human.stdout).toMatch(/^unchanged mcp-memory/m);
  });
});

describe('doctor', () => {
  it("reports each participant's sources: found with their last change, or not on this machine", async () => {
    fs.mkdirSync(path.join(library, 'agents'), { recursive: true });
    const result = await bourdon(['doctor', '--json', '--offline']);
    const report = JSON.parse(result.stdout) as { checks: { id: string; verdict: string; details: string[] }[] };
    const check = (id: string) => report.checks.find((item) => item.id === id)!;
    expect(check('participant:claude-code').verdict).toBe('ok');
    expect(check('participant:claude-code').details).toContainEqual(
      expect.stringMatching(/^found\s+auto_memory: .*-work-kite\/memory \(modified \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/),
    );
    expect(check('participant:claude-code').details).toContainEqual(
      expect.stringMatching(/^missing\s+knowledge_graph: /),
    );
    expect(check('participant:mcp-memory').verdict).toBe('info');
  });
});
