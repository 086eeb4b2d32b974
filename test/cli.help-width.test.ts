/**
 * Every help screen fits an 80-column terminal, on the real binary in a pseudo-terminal 80
 * columns wide: each command's `--help`, `bourdon help`, each topic's guide and a bare
 * `bourdon`. An example too long for a line is broken between shell words and continued with
 * ` \`, so it still pastes as written: joined back, it is the example the manifest holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/fixtures.js';
import { runInPty, stripAnsi } from './helpers/pty.js';
import { overlong } from './helpers/width.js';

const WIDTH = 80;

interface ManifestCommand {
  id: string;
  examples?: (string | { description: string; command: string })[];
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};
const topics = Object.keys(
  (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { oclif: { topics: object } }).oclif
    .topics,
);

/** The screen's lines as shown, at 80 columns (a pipe would not be wrapped). */
async function screen(args: string[]): Promise<string[]> {
  const result = await runInPty(args, [], { columns: WIDTH, env: { NO_COLOR: '1' }, timeoutMs: 60_000 });
  expect(result.code, args.join(' ')).toBe(0);
  return stripAnsi(result.output)
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));
}

/** The EXAMPLES section's examples as a user would paste them: ` \` continuations joined, comments left out. */
function shownExamples(lines: string[]): string[] {
  const start = lines.indexOf('EXAMPLES');
  if (start < 0) return [];
  const examples: string[] = [];
  let current: string | null = null;
  for (const line of lines.slice(start + 1)) {
    if (line !== '' && !line.startsWith(' ')) break; // the next section
    const text = line.trim();
    if (text.startsWith('# ')) continue;
    if (current === null) {
      if (!text.startsWith('$ ')) continue;
      current = text.slice(2);
    } else current += ' ' + text;
    if (current.endsWith(' \\')) current = current.slice(0, -2);
    else {
      examples.push(current.replace(/\s+#\s.*$/, ''));
      current = null;
    }
  }
  return examples;
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: size }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

describe('help fits an 80-column terminal', () => {
  it("every command's --help: no line wider than 80, every example joined back as written", async () => {
    const wide: string[] = [];
    const changed: string[] = [];
    let wrapped = 0;
    await pool(Object.values(manifest.commands), 2, async (command) => {
      const lines = await screen([...command.id.split(':'), '--help']);
      for (const line of overlong(lines, WIDTH)) wide.push(`${command.id}: ${line}`);
      const expected = (command.examples ?? []).map((example) =>
        (typeof example === 'string' ? example : example.command)
          .replaceAll('<%= config.bin %>', 'bourdon')
          .replace(/\s+#\s.*$/, ''),
      );
      // `help --help` is the root help (oclif's), which has no examples of its own.
      const shown = command.id === 'help' ? expected : shownExamples(lines);
      if (JSON.stringify(shown) !== JSON.stringify(expected))
        changed.push(`${command.id}:\n  ${expected.join('\n  ')}\nshown:\n  ${shown.join('\n  ')}`);
      wrapped += lines.filter((line) => line.endsWith(' \\')).length;
    });
    expect(wide).toEqual([]);
    expect(changed).toEqual([]);
    // Some examples are longer than a line: the layout was exercised, not skipped.
    expect(wrapped).toBeGreaterThan(0);
  }, 600_000);

  it('bourdon help, every topic guide and a bare bourdon: no line wider than 80', async () => {
    const wide: string[] = [];
    await pool([['help'], [], ...topics.map((topic) => ['help', topic])], 2, async (args) => {
      const lines = await screen(args);
      expect(lines.length, args.join(' ')).toBeGreaterThan(3);
      for (const line of overlong(lines, WIDTH)) wide.push(`bourdon ${args.join(' ')}: ${line}`);
    });
    expect(wide).toEqual([]);
  }, 300_000);

  it('a comment that does not fit beside its command goes on its own line below it', async () => {
    const lines = await screen(['help', 'agent']);
    const at = lines.findIndex((line) => line.trim() === '$ bourdon agent add openclaw --grant cursor');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {6}# quarantined, reads cursor; prints its token$/);
  });
});
