/**
 * Every example a user is shown runs as written: the `sh` blocks of the README and the examples
 * of every command's `--help` (read from oclif.manifest.json, which the help prints), in that
 * order, through a `bourdon` on PATH (the real bin/run.js) in a shell, on the demo library that
 * `bourdon demo --keep` leaves (its codex versions, its staged write and its rows.yaml are what
 * the examples use). A fresh HOME stands for the user's: `~/.bourdon` is the config dir and
 * `~/agent-library` may be created. An example that starts a server or a wizard is not run, and
 * one whose documented answer is a refusal is checked for that refusal: each such case is listed
 * below with its reason, so a new example is either run or classified here.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from '../src/core/errors.js';
import { BIN, REPO_ROOT, tempDir } from './helpers/fixtures.js';

interface Example {
  source: string;
  script: string;
}

/** Examples not run, by their start: each starts something that runs until stopped or asks. */
const NOT_RUN: { start: string; why: string }[] = [
  { start: 'bourdon serve', why: 'a server: runs until stopped (test/e2e.serve-*.test.ts)' },
  { start: 'bourdon ui', why: 'a server: runs until stopped (test/e2e.ui.test.ts)' },
  {
    start: 'bourdon watch',
    why: 'runs until stopped, or installs a login service (test/watch.test.ts, test/watch-service.test.ts)',
  },
  { start: 'bourdon init', why: 'the wizard: asks on a terminal (test/cli.init.test.ts)' },
  { start: 'export ', why: 'the test sets BOURDON_LIBRARY to the demo library itself' },
  { start: 'claude ', why: "another program (Claude Code's CLI)" },
];

/** Examples whose documented answer outside a terminal is a refusal, and the words it says. */
const REFUSED: { pattern: RegExp; code: number; says: RegExp; why: string }[] = [
  {
    pattern: /^bourdon rollback \w+ \d+ --reason "[^"]*"\s*(#.*)?$/,
    code: 2,
    says: /pass --yes/,
    why: 'asks first on a terminal; elsewhere it refuses without --yes',
  },
  {
    pattern: /^bourdon staging promote \w+$/,
    code: 2,
    says: /--yes|--digest/,
    why: 'shows the review and asks on a terminal; elsewhere it refuses without --yes or --digest',
  },
  {
    pattern: /^bourdon sync init git@/,
    code: FAILURES.unavailable.exit,
    says: /git@github\.com|reach|remote/,
    why: 'an invented ssh remote: init says it cannot reach it (a local bare repository is the runnable example)',
  },
  {
    pattern: /^bourdon sync trust laptop/,
    code: FAILURES.not_found.exit,
    says: /no publication of laptop/,
    why: 'no other machine publishes on the remote the examples set up: there is no laptop key to trust (test/sync.signing.test.ts runs it between two machines)',
  },
  {
    pattern: /^bourdon openclaw export/,
    code: 1, // an export's failure, as the engine's exporters exit (docs/errors.md)
    says: /handshake refused/,
    why: 'no OpenClaw instance runs where the examples run: the export refuses in one line (test/participants.openclaw.test.ts runs it against one)',
  },
  {
    pattern: /^bourdon peers check/,
    code: 1,
    says: /unreachable|laptop/,
    why: 'the peers the examples add are invented hosts: the check reports them unreachable',
  },
];

/** README sections whose `sh` blocks are not examples of the CLI on a library. */
const README_SKIPPED_SECTIONS = new Set(['Quick start', 'Install', 'Development']);

function readmeExamples(): Example[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const examples: Example[] = [];
  let section = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{2,3} (.+)$/.exec(lines[i]!);
    if (heading) section = heading[1]!.trim();
    if (lines[i] !== '```sh') continue;
    const block: string[] = [];
    // A command continued with ` \` (the README fits 80 columns) is one line, as the shell reads
    // it; a comment on a line of its own below its command is left out.
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      const line = lines[i]!;
      if (/^\s+#/.test(line)) continue;
      const last = block.at(-1);
      if (last?.endsWith(' \\')) block[block.length - 1] = `${last.slice(0, -1)}${line.trim()}`;
      else block.push(line);
    }
    if (README_SKIPPED_SECTIONS.has(section)) continue;
    const source = `README "${section}"`;
    const oneLiners = block.every((line) => /^(bourdon |export |claude |mkdir -p |$)/.test(line));
    if (oneLiners) for (const line of block.filter(Boolean)) examples.push({ source, script: line });
    else examples.push({ source, script: block.join('\n') });
  }
  return examples;
}

function helpExamples(): Example[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, { examples?: (string | { command: string })[] }>;
  };
  return Object.entries(manifest.commands).flatMap(([id, command]) =>
    (command.examples ?? []).map((example) => ({
      source: `${id.replaceAll(':', ' ')} --help`,
      script: (typeof example === 'string' ? example : example.command).replaceAll('<%= config.bin %>', 'bourdon'),
    })),
  );
}

const EXAMPLES = [...readmeExamples(), ...helpExamples()];

let home: string;
let library: string;
let pathWithBourdon: string;

function shell(script: string, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: library ?? home,
      env: {
        PATH: pathWithBourdon,
        HOME: home,
        NO_COLOR: '1',
        ...(library ? { BOURDON_LIBRARY: library } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  home = tempDir('bourdon-examples-home-');
  const bin = path.join(home, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'bourdon'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  pathWithBourdon = `${bin}:${process.env.PATH ?? ''}`;
  // Codex is installed: its config folder exists (the mcp-config example appends to it).
  fs.mkdirSync(path.join(home, '.codex'));
  const demo = await shell('bourdon demo --keep', 120_000);
  expect(demo.code, demo.stderr).toBe(0);
  library = /demo library kept at (\S+)/.exec(demo.stderr)?.[1] ?? '';
  expect(fs.existsSync(path.join(library, 'rows.yaml'))).toBe(true);
}, 150_000);

afterAll(() => {
  for (const dir of [home, library]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('every README and --help example runs as written on the demo library', () => {
  it('finds the examples (README blocks and every command with examples)', () => {
    expect(EXAMPLES.filter((e) => e.source.startsWith('README')).length).toBeGreaterThan(20);
    expect(EXAMPLES.some((e) => e.script.startsWith('bourdon commit notes-bot --agent-type note-capture'))).toBe(true);
  });

  for (const example of EXAMPLES) {
    const skipped = NOT_RUN.find((rule) => example.script.startsWith(rule.start));
    const refused = REFUSED.find((rule) => rule.pattern.test(example.script));
    const title = `${example.source}: ${example.script.split('\n')[0]}${skipped ? ` (not run: ${skipped.why})` : ''}`;
    it.skipIf(skipped !== undefined)(
      title,
      async () => {
        const result = await shell(`set -o pipefail\n${example.script}`);
        const report = `${example.script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
        if (refused) {
          expect(result.code, report).toBe(refused.code);
          expect(result.stderr + result.stdout, report).toMatch(refused.says);
          return;
        }
        expect(result.code, report).toBe(0);
      },
      90_000,
    );
  }
});
