/**
 * A label set through a YAML merge key is the row's label. Python tools share fields through
 * `<<: *anchor` and PyYAML (the engine's reader) honours it: a row whose `visibility: private`
 * comes from an anchor must be served at private only, on every surface, and no `<<` key may
 * show anywhere. Through a real MCP client and through the binary (twice: the second answer
 * comes from the parsed cache).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { callJson, linkedClient, readJsonResource, type LinkedClient } from './helpers/mcp.js';

const MANIFEST = `spec_version: '0.1'
hidden: &hid {visibility: private, type: secret}
teamonly: &team
  visibility: team
agent:
  id: anchors
  type: code-assistant
last_updated: '2026-06-01T10:00:00+00:00'
known_entities:
  - <<: *hid
    name: Payroll
    summary: private via merge key
  - name: Roadmap
    <<: [*team, *hid]
    summary: the first anchor in a list wins
  - <<: *hid
    name: Launch Plan
    visibility: public
    summary: an explicit key wins over a merged one
recent_sessions:
  - <<: *hid
    date: '2026-05-30'
    cwd: /payroll
    key_actions: [ran payroll for May]
  - date: '2026-05-31'
    cwd: /site
    key_actions: [published the launch plan]
`;

let library: string;
let linked: LinkedClient;

beforeAll(async () => {
  library = tempDir('bourdon-merge-');
  fs.mkdirSync(path.join(library, 'agents'));
  fs.writeFileSync(path.join(library, 'agents', 'anchors.l5.yaml'), MANIFEST);
  linked = await linkedClient(library);
});
afterAll(() => linked.close());

const names = (payload: unknown) => ((payload as { matches: { name: string }[] }).matches ?? []).map((m) => m.name);

describe('merge keys over MCP', () => {
  it('find_entity serves a row made private by a merge key only at private', async () => {
    expect(names(await callJson(linked.client, 'find_entity', { name: 'Payroll', access_level: 'public' }))).toEqual(
      [],
    );
    expect(names(await callJson(linked.client, 'find_entity', { name: 'Payroll', access_level: 'team' }))).toEqual([]);
    expect(names(await callJson(linked.client, 'find_entity', { name: 'Payroll', access_level: 'private' }))).toEqual([
      'Payroll',
    ]);
  });

  it('the first anchor of a merged list wins, and an explicit key wins over a merged one', async () => {
    expect(names(await callJson(linked.client, 'find_entity', { name: 'Roadmap', access_level: 'team' }))).toEqual([
      'Roadmap',
    ]);
    expect(names(await callJson(linked.client, 'find_entity', { name: 'Roadmap', access_level: 'public' }))).toEqual(
      [],
    );
    expect(
      names(await callJson(linked.client, 'find_entity', { name: 'Launch Plan', access_level: 'public' })),
    ).toEqual(['Launch Plan']);
  });

  it('list_recent_work and prepare_recognition_context leave the merged private rows out at public', async () => {
    const recent = JSON.stringify(
      await callJson(linked.client, 'list_recent_work', { since: '2026-05-01', access_level: 'public' }),
    );
    expect(recent).toContain('published the launch plan');
    expect(recent).not.toContain('payroll');
    const context = (await callJson(linked.client, 'prepare_recognition_context', {
      prompt: 'Payroll and the Launch Plan',
      access_level: 'public',
    })) as { matched_entities: { name: string }[]; prompt_context: string };
    expect(context.matched_entities.map((m) => m.name)).toEqual(['Launch Plan']);
    expect(context.prompt_context).not.toContain('Payroll');
  });

  it('the memory resource shows neither the private rows nor a `<<` key', async () => {
    const memory = JSON.stringify(await readJsonResource(linked.client, 'agent-library://agents/anchors/memory'));
    expect(memory).toContain('Launch Plan');
    expect(memory).not.toContain('Payroll');
    expect(memory).not.toContain('payroll');
    expect(memory).not.toContain('<<');
  });
});

describe('merge keys through the binary', () => {
  it('find answers at public without the merged private row, on a fresh parse and from the cache', async () => {
    const env = { BOURDON_LIBRARY: library };
    for (let run = 0; run < 2; run += 1) {
      const hidden = await runCli(['find', 'Payroll', '--access-level', 'public', '--json'], { env });
      expect(hidden.stdout, hidden.stderr).not.toContain('private via merge key');
      const shown = await runCli(['find', 'Payroll', '--access-level', 'private', '--json'], { env });
      expect(JSON.parse(shown.stdout).matches[0].summaries).toEqual({ anchors: 'private via merge key' });
    }
  });
});
