/**
 * Human output and machine output: colour only on a terminal and never with NO_COLOR, no
 * escape codes in pipes, --json is exactly one JSON document on stdout, a progress line only
 * for a person watching; help that lists commands by task; rollbacks scripted with jq.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { BIN, copyFixtureLibrary, REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { ANSI, runInPty } from './helpers/pty.js';
import { at } from './helpers/items.js';

// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b/;

describe('colour and escape codes', () => {
  let library: string;
  let home: string;
  beforeAll(() => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-output-home-');
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('on a terminal, human output is coloured (the control case)', async () => {
    const result = await runInPty(['agents', '--library', library], [], {
      env: { BOURDON_HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined },
    });
    expect(result.code).toBe(0);
    expect(result.output).toMatch(ANSI);
  });

  it('NO_COLOR=1 on a terminal: not one escape code, for tables, help, doctor (with its progress line) and mcp-config', async () => {
    for (const args of [
      ['agents', '--library', library],
      ['find', 'Bourdon', '--library', library],
      ['help'],
      ['doctor', '--library', library, '--offline'],
      ['mcp-config', '--library', library],
    ]) {
      const result = await runInPty(args, [], { env: { BOURDON_HOME: home, NO_COLOR: '1' } });
      expect(result.output.length, args.join(' ')).toBeGreaterThan(20);
      expect(result.output, args.join(' ')).not.toMatch(ESCAPE);
    }
  });

  it('stdout that is not a terminal gets no escape codes, even without NO_COLOR', async () => {
    for (const args of [
      ['agents', '--library', library],
      ['doctor', '--library', library, '--offline'],
      ['help'],
      ['mcp-config', '--host', 'codex', '--library', library],
      ['init', '--yes', '--library', path.join(tempDir(), 'lib')],
    ]) {
      const result = await runCli(args, { env: { BOURDON_HOME: home, NO_COLOR: undefined } });
      expect(result.stdout.length, args.join(' ')).toBeGreaterThan(20);
      expect(result.stdout, args.join(' ')).not.toMatch(ESCAPE);
      expect(result.stderr, args.join(' ')).not.toMatch(ESCAPE);
    }
  });

  it('a progress line shows on a terminal for doctor, and never with --json', async () => {
    const shown = await runInPty(['doctor', '--library', library, '--offline'], [], {
      env: { BOURDON_HOME: home, NO_COLOR: '1' },
    });
    expect(shown.output).toContain('⠋ checking the library');
    const json = await runInPty(['doctor', '--library', library, '--offline', '--json'], [], {
      env: { BOURDON_HOME: home, NO_COLOR: '1' },
    });
    expect(json.output).not.toContain('checking the library');
    // stderr a pipe (stdout still a terminal): no progress line either.
    const piped = await runInPty(['doctor', '--library', library, '--offline'], [], {
      env: { BOURDON_HOME: home },
      separateStderr: true,
    });
    expect(piped.stderr).toBe('');
    expect(piped.output).not.toContain('checking the library');
  });

  it('a large library loads behind a progress line on a terminal, silently elsewhere', async () => {
    const big = tempDir('bourdon-big-');
    fs.mkdirSync(path.join(big, 'agents'));
    for (let i = 0; i < 500; i++) {
      fs.writeFileSync(
        path.join(big, 'agents', `agent-${i}.l5.yaml`),
        `agent: {id: agent-${i}, type: other}\nknown_entities: [{name: E${i}}]\n`,
      );
    }
    const env = { BOURDON_HOME: home, NO_COLOR: '1', BOURDON_NO_CACHE: '1' };
    const shown = await runInPty(['find', 'E7', '--library', big], [], { env });
    expect(shown.output).toContain('loading 500 manifests…');
    expect(shown.output).not.toMatch(ESCAPE);
    const json = await runInPty(['find', 'E7', '--library', big, '--json'], [], { env });
    expect(json.output).not.toContain('loading');
    const piped = await runCli(['find', 'E7', '--library', big], { env });
    expect(piped.stdout + piped.stderr).not.toContain('loading');
    fs.rmSync(big, { recursive: true, force: true });
  });
});

describe('--json is exactly one JSON document on stdout', () => {
  let library: string;
  let home: string;
  beforeAll(() => {
    library = copyFixtureLibrary();
    home = tempDir('bourdon-json-home-');
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('in a pipe', async () => {
    for (const args of [
      ['doctor', '--library', library, '--offline', '--json'],
      ['mcp-config', '--json', '--library', library],
      ['init', '--yes', '--json', '--library', path.join(tempDir(), 'lib')],
    ]) {
      const result = await runCli(args, { env: { BOURDON_HOME: home, NO_COLOR: undefined } });
      expect(() => JSON.parse(result.stdout), `${args.join(' ')}: ${result.stdout}`).not.toThrow();
      expect(result.stdout.trim().startsWith('{') || result.stdout.trim().startsWith('[')).toBe(true);
      expect(result.stdout).not.toMatch(ESCAPE);
    }
  });

  it('on a terminal too: with stderr kept apart, the terminal shows the JSON and nothing else', async () => {
    for (const args of [
      ['doctor', '--library', library, '--offline', '--json'],
      ['agents', '--json', '--library', library],
    ]) {
      const result = await runInPty(args, [], {
        env: { BOURDON_HOME: home, NO_COLOR: undefined },
        separateStderr: true,
      });
      const text = result.output.replace(/\r\n/g, '\n');
      expect(text, args.join(' ')).not.toMatch(ESCAPE);
      expect(() => JSON.parse(text), `${args.join(' ')}: ${text}`).not.toThrow();
    }
  });
});

describe('help that teaches', () => {
  it('`bourdon help` lists the commands by task, then the guides', async () => {
    const result = await runCli(['help']);
    expect(result.code).toBe(0);
    const headings = result.stdout.split('\n').filter((line) => /^[A-Z][A-Z ]+$/.test(line));
    expect(headings).toEqual([
      'VERSION',
      'USAGE',
      'ASK THE LIBRARY',
      'FILL THE LIBRARY',
      'WRITE AND RECOVER',
      'MEMBERS AND TRUST',
      'PEERS',
      'SHARE THROUGH GIT',
      'SERVE AND SET UP',
      'GUIDES',
    ]);
    const section = (title: string) => at(result.stdout.split(`${title}\n`), 1, title).split('\n\n')[0];
    expect(section('ASK THE LIBRARY')).toMatch(/^\s+find\s+Who knows about X\.$/m);
    expect(section('FILL THE LIBRARY')).toMatch(/^\s+export-all\s+/m);
    expect(section('MEMBERS AND TRUST')).toMatch(/^\s+agent add\s+/m);
    expect(section('PEERS')).toMatch(/^\s+peers check\s+/m);
    expect(section('SHARE THROUGH GIT')).toMatch(/^\s+sync push\s+/m);
    expect(section('SERVE AND SET UP')).toMatch(/^\s+doctor\s+/m);
    expect(section('GUIDES')).toMatch(/^\s+help staging\s+/m);
    // `bourdon --help` is the same page.
    expect((await runCli(['--help'])).stdout).toBe(result.stdout);
  });

  it('topics open with a guide and examples, then their commands', async () => {
    for (const topic of ['agent', 'staging', 'peers', 'sync']) {
      const result = await runCli(['help', topic]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('GUIDE\n');
      expect(result.stdout).toContain('EXAMPLES\n');
      expect(result.stdout).toMatch(new RegExp(`^COMMANDS\\n\\s+${topic} \\w+`, 'm'));
    }
    const command = await runCli(['help', 'staging', 'promote']);
    expect(command.stdout).toContain('$ bourdon staging promote AGENT');
    const unknown = await runCli(['help', 'nonsense']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('bourdon: no command or topic "nonsense" (see `bourdon help`)\n');
  });

  it('every command has a summary, a description and examples', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { summary?: string; description?: string; examples?: unknown[] }>;
    };
    const missing = Object.entries(manifest.commands)
      .map(([id, command]) => {
        const gaps = [
          !command.summary && 'summary',
          !command.description && 'description',
          !command.examples?.length && 'examples',
        ].filter(Boolean);
        return gaps.length ? `${id}: ${gaps.join(', ')}` : null;
      })
      .filter(Boolean);
    expect(missing).toEqual([]);
  });
});

describe('scripted rollbacks: history --json and rollback --yes compose with jq', () => {
  it('undoes the latest write, as the README shows', () => {
    const library = copyFixtureLibrary();
    const home = tempDir('bourdon-jq-home-');
    const bourdon = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    const script = `
      set -euo pipefail
      bourdon() { ${bourdon} "$@"; }
      echo '{"entities":[{"name":"Bad Import","type":"oops"}]}' | bourdon commit codex --file - --json > /dev/null
      prev=$(bourdon history codex --json | jq -r '.versions as $v | ($v | map(.current) | index(true)) as $i | $v[$i + 1].version // empty')
      test -n "$prev"
      bourdon rollback codex "$prev" --yes --reason "undo the latest write" --json | jq -c '{restored_version, version}'
      bourdon find "Bad Import" --json | jq '.matches | length'
    `;
    const out = execFileSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BOURDON_HOME: home,
        BOURDON_LIBRARY: library,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out.trim().split('\n')).toEqual(['{"restored_version":1,"version":3}', '0']);
    fs.rmSync(library, { recursive: true, force: true });
  });
});
