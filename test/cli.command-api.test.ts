/**
 * A command class is a Node API, as oclif CLIs with `enableJsonFlag` are: `await Find.run(argv)`
 * resolves to the command's answer, the very object the binary prints under --json, whatever
 * the command printed for a person meanwhile.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import Find from '../src/commands/find.js';
import Query from '../src/commands/query.js';
import Recent from '../src/commands/recent.js';
import Version from '../src/commands/version.js';
import { runCli } from './helpers/cli.js';
import { FIXTURE_LIBRARY, REPO_ROOT } from './helpers/fixtures.js';

/** What a command run in this process writes on stdout, kept from the test output. */
function captureStdout(): { text: () => string } {
  let text = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  // The fixture library holds an unreadable manifest on purpose: its warning is not the point here.
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  return { text: () => text };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a command class, awaited from Node', () => {
  it('Find.run resolves to the answer --json prints, and prints the human table', async () => {
    const printed = await runCli(['find', 'flaky test', '--library', FIXTURE_LIBRARY, '--json']);
    expect(printed.code).toBe(0);
    const stdout = captureStdout();
    const answer = await Find.run(['flaky test', '--library', FIXTURE_LIBRARY]);
    expect(answer).toEqual(JSON.parse(printed.stdout));
    expect(answer.matches.map((match) => match.name)).toEqual(['Flaky Test']);
    expect(stdout.text()).toContain('Flaky Test (ticket) — known by cursor');
    expect(stdout.text()).not.toContain('"matches"');
  });

  it('with --json, oclif prints the returned answer, byte for byte as the binary does', async () => {
    const argv = ['--since', '2020-01-01', '--limit', '2', '--library', FIXTURE_LIBRARY, '--json'];
    const printed = await runCli(['recent', ...argv], { env: { BOURDON_NO_FAST_PATH: '1' } });
    expect(printed.code).toBe(0);
    const stdout = captureStdout();
    const answer = await Recent.run(argv);
    expect(stdout.text()).toBe(printed.stdout);
    expect(answer.sessions).toHaveLength(2);
    expect(answer.has_more).toBe(true);
  });

  it('a refusal rejects with the exit status the binary gives, and resolves nothing', async () => {
    const printed = await runCli(['query', 'nosuch-agent', 'x', '--library', FIXTURE_LIBRARY]);
    captureStdout();
    await expect(Query.run(['nosuch-agent', 'x', '--library', FIXTURE_LIBRARY])).rejects.toMatchObject({
      oclif: { exit: printed.code },
    });
    expect(printed.code).not.toBe(0);
  });

  it("a command outside the library (version) answers its payload, from the package's config", async () => {
    const stdout = captureStdout();
    // The second argument is where oclif loads the CLI's config (package.json) from.
    const answer = await Version.run([], REPO_ROOT);
    expect(answer).toMatchObject({ name: 'bourdon', node: process.versions.node, platform: process.platform });
    expect(stdout.text()).toMatch(/^bourdon\/\S+ /);
  });
});
