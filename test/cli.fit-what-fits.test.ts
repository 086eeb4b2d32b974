/**
 * Tables and one-line reports cut only what does not fit, and never the part that says what
 * happened (issue 54, item 6).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLine, type ParticipantRun } from '../src/cli/participant-runs.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const run = (extra: Partial<ParticipantRun>): ParticipantRun => ({
  participant: 'claude-desktop-code',
  agent_id: 'claude-desktop-code',
  outcome: 'exported',
  reason: null,
  sources: [],
  warnings: [],
  counts: { entities: 12, sessions: 340, filtered: 0, redacted: 0 },
  path: null,
  version: 12,
  written: true,
  staged: false,
  kept: null,
  ...extra,
});

describe('export-all lines', () => {
  it('keep the whole story when it fits, and shorten the extras rather than cutting a word', () => {
    const full = run({ warnings: ['a'], kept: { entities: 1, sessions: 0, notes: 0 } });
    expect(runLine(full, null)).toBe(
      'exported  claude-desktop-code: version 12, 12 entities, 340 sessions; kept 1 row of other writers; 1 warning',
    );
    // Narrower: the kept rows shortened, the warning whole; no word cut in the middle.
    expect(runLine(full, 90)).toBe(
      'exported  claude-desktop-code: version 12, 12 entities, 340 sessions; kept 1; 1 warning',
    );
    // At 80 columns the kept rows go, the warning stays whole (today's code ended in `1 war…`).
    const at80 = runLine(full, 80);
    expect(at80).toBe('exported  claude-desktop-code: version 12, 12 entities, 340 sessions; 1 warning');
    expect(at80).not.toContain('…');
    // Narrower: the extras go (stderr and --json carry them), what happened stays.
    expect(runLine(full, 72)).toBe('exported  claude-desktop-code: version 12, 12 entities, 340 sessions');
    // Narrower still: only the end of the detail is cut, never the outcome and the id.
    expect(runLine(full, 45)).toBe('exported  claude-desktop-code: version 12, 1…');
    // A failure keeps its outcome and id; its reason is cut at the end.
    const failed = run({ outcome: 'failed', reason: 'refusing to write through the symbolic link /home/ana/agents' });
    expect(runLine(failed, 60)).toMatch(/^failed {4}claude-desktop-code: refusing to write through th…$/);
  });
});

describe('list-notes', () => {
  it('shows every tag when the whole line fits the width', async () => {
    const library = tempDir('bourdon-fit-');
    fs.mkdirSync(path.join(library, 'agents'));
    fs.writeFileSync(
      path.join(library, 'agents', 'codex.l5.yaml'),
      [
        'spec_version: "0.1"',
        'agent: {id: codex, type: code-assistant}',
        'last_updated: "2026-11-30T10:00:00Z"',
        'notes:',
        '  - date: "2026-11-28"',
        '    text: Cut the 2.4 release branch',
        '    tags: [release, backend]',
        '    project_focus: [Orbit]',
        '',
      ].join('\n'),
    );
    const result = await runCli(['list-notes', '--since', '2000-01-01', '--library', library], {
      env: { COLUMNS: '80' },
    });
    expect(result.code, result.stderr).toBe(0);
    const line = at(result.stdout.split('\n'), 1, 'a row');
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line).toMatch(/Cut the 2\.4 release branch\s+release, backend, @Orbit$/);
  });
});
