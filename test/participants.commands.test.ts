/**
 * Every participant in the registry is `bourdon <topic> export`, with the same flags and
 * behaviour as the others: the commands are made from the registry, so a participant added to it
 * is a command without a command file. Checked on the shipped oclif manifest (what `--help` and
 * the CLI read) and through the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/fixtures.js';
import { runCli } from './helpers/cli.js';
import { PARTICIPANTS } from '../src/participants/registry.js';

interface ManifestCommand {
  flags: Record<string, { name: string }>;
  summary?: string;
  description?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};

const COMMON_FLAGS = ['out', 'since', 'access-level', 'print', 'dry-run', 'json', 'library'];

describe('participant export commands', () => {
  for (const participant of PARTICIPANTS) {
    it(`${participant.topic} export: the common flags, its own source flag, its help text`, () => {
      const command = manifest.commands[`${participant.topic}:export`];
      expect(command, `no ${participant.topic}:export in oclif.manifest.json`).toBeDefined();
      const expected = [...COMMON_FLAGS, ...(participant.help.flags ?? []).map((flag) => flag.name)];
      expect(Object.keys(command!.flags).sort()).toEqual(expected.sort());
      expect(command!.summary).toBe(participant.help.summary);
      expect(command!.description).toContain(participant.help.reads);
      expect(command!.description).toContain(
        participant.staged
          ? `bourdon staging promote ${participant.agentId}`
          : `bourdon rollback ${participant.agentId} <version>`,
      );
    });
  }

  it('a source flag naming a missing file is one line, exit 1, nothing written', async () => {
    const withFile = PARTICIPANTS.find((participant) => participant.help.flags?.some((flag) => flag.isFile));
    expect(withFile).toBeDefined();
    const root = tempDir('bourdon-source-flag-');
    const library = path.join(root, 'library');
    const result = await runCli([withFile!.topic, 'export', '--file', path.join(root, 'nope.jsonl')], {
      cwd: root,
      env: { HOME: root, BOURDON_HOME: path.join(root, 'config'), BOURDON_LIBRARY: library },
    });
    expect(result.code).toBe(1); // an export's failure exits 1, as the engine's exporters do (docs/errors.md)
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('nope.jsonl: no such file');
    expect(fs.existsSync(library)).toBe(false);
  });
});
