/**
 * What help says is true of the commands (issue 44, item 7): the footer names the commands
 * that do not take the shared flags, read from their own flags in the manifest; `serve --help`
 * shows its two ways to run apart, so --library does not read as needing --token-env.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/fixtures.js';

interface ManifestCommand {
  id: string;
  hidden?: boolean;
  flags: Record<string, unknown>;
}

const commands = Object.values(
  (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, ManifestCommand>;
    }
  ).commands,
).filter((command) => !command.hidden && command.id !== 'help');

/** A help screen's text with its line breaks (and continued lines' indentation) as spaces. */
function joined(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe('help says what the commands take', () => {
  it('the footer names every command that does not take --library or --json, and no other', async () => {
    const help = await runCli(['help'], { env: { COLUMNS: '80' } });
    expect(help.code, help.stderr).toBe(0);
    const text = joined(help.stdout);
    for (const [flag, shown] of [
      ['library', '--library <dir>'],
      ['json', '--json'],
    ] as const) {
      const sentence = new RegExp(`Every command (?:but ([^.]*?) )?takes ${shown.replace(/[-<>]/g, '\\$&')}`).exec(
        text,
      );
      expect(sentence, `${flag}: ${text.slice(-600)}`).not.toBeNull();
      const named = (sentence![1] ?? '').split(', ').filter(Boolean);
      /** Whether the footer names a command: by its id, or by its topic (`agent …`) for a whole topic. */
      const isNamed = (id: string) =>
        named.includes(id.replaceAll(':', ' ')) || named.includes(`${id.split(':')[0]} …`);
      const lacking = commands.filter((command) => !(flag in command.flags)).map((command) => command.id);
      const taking = commands.filter((command) => flag in command.flags).map((command) => command.id);
      expect(
        lacking.filter((id) => !isNamed(id)),
        `${flag}: commands without it the footer does not name`,
      ).toEqual([]);
      expect(
        taking.filter((id) => isNamed(id)),
        `${flag}: commands with it the footer names as without`,
      ).toEqual([]);
    }
    // The case the issue found: `agent list` takes no --library, and the footer says so.
    expect(commands.find((command) => command.id === 'agent:list')!.flags).not.toHaveProperty('library');
  });

  it('serve --help: --library and --token-env are on different usage lines; --token-env only beside --url', async () => {
    const help = await runCli(['serve', '--help'], { env: { COLUMNS: '80' } });
    expect(help.code, help.stderr).toBe(0);
    const section = /^USAGE\n([\s\S]*?)\n\n/m.exec(help.stdout)![1]!;
    const usages = section
      .split(/\n {2}\$ /)
      .map((usage) => joined(usage.replace(/^ {2}\$ /, '')).trim())
      .filter(Boolean);
    expect(usages.length, section).toBeGreaterThanOrEqual(2);
    for (const usage of usages) {
      if (usage.includes('--token-env')) {
        expect(usage, 'the bridge line').toMatch(/^bourdon serve --url <url> /);
        expect(usage).not.toContain('--library');
      }
    }
    expect(usages.some((usage) => usage.includes('--library') && !usage.includes('--url'))).toBe(true);
    for (const line of section.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});
