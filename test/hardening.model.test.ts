/**
 * Manifests whose values do not fit the L5 model (store/model.ts), through every way one comes
 * in: a library's agents/, a pulled sync branch, and a participant's export. A value that does
 * not fit is left out at the smallest level (a list item, the field, else its row), the loader
 * warns once naming the file and the first field (never the value), and the rest is served.
 * hardening.manifests.test.ts has the files that are not manifests at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryStore } from '../src/core/store/library.js';
import type { AgentRecord } from '../src/core/store/manifest-file.js';
import { runExport, exportEnvironment } from '../src/participants/runner.js';
import type { Manifest } from '../src/participants/kit/manifest-shape.js';
import type { Participant } from '../src/participants/kit/participant.js';
import { tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

// As deep as the YAML reader takes (deeper is a file that is not a manifest: hardening.manifests).
const DEEP = '['.repeat(90) + ']'.repeat(90);
const HUGE = 'h'.repeat(1_000_000);

/** One manifest per hostile shape: the file, its YAML, the field its one warning names, and what is still read. */
const SHAPES: { file: string; yaml: string; field: string; check: (record: AgentRecord) => void }[] = [
  {
    file: 'wrong-types.l5.yaml',
    yaml: [
      'agent: {id: wrong-types, type: other}',
      'known_entities:',
      '  - {name: Kept, type: {a: 1}, aliases: [one, {x: 1}, 2], tags: [t, 3]}',
      '  - {name: Second, summary: [not, text]}',
      'recent_sessions:',
      "  - {date: '2026-06-01', key_actions: {a: 1}, project_focus: Orbit}",
    ].join('\n'),
    field: 'known_entities[0].type',
    check: (record) => {
      expect(record.entities).toEqual([
        {
          name: 'Kept',
          type: null,
          aliases: ['one', '2'],
          summary: null,
          tags: ['t'],
          valid_to: null,
          visibility: 'public',
          // The aliases written as text, which compile_codex_turn reads (as the engine's compiler).
          textOnly: { aliases: ['one'] },
        },
        { name: 'Second', type: null, aliases: [], summary: null, tags: [], valid_to: null, visibility: 'public' },
      ]);
      expect(record.sessions[0]).toMatchObject({ date: '2026-06-01', key_actions: [], project_focus: ['Orbit'] });
    },
  },
  {
    file: 'nulls.l5.yaml',
    yaml: [
      'agent: null',
      'known_entities: [null, {name: null}, {name: Kept, type: null, aliases: null}]',
      'recent_sessions: [{date: null}, {date: 2026-06-02, cwd: null}]',
      'notes: null',
    ].join('\n'),
    field: 'agent',
    check: (record) => {
      expect(record.agent).toEqual({ type: null, instance: null, role_narrative: null });
      expect(record.entities.map((entity) => entity.name)).toEqual(['Kept']);
      expect(record.sessions.map((session) => session.date)).toEqual(['2026-06-02']);
    },
  },
  {
    file: 'missing-keys.l5.yaml',
    yaml: [
      'agent: {id: missing-keys}',
      'known_entities: [{type: project}, {name: Kept}]',
      "recent_sessions: [{cwd: /x}, {date: '2026-06-03'}]",
      "notes: [{date: '2026-06-03'}, {text: no date}, {date: '2026-06-03', text: kept}]",
    ].join('\n'),
    field: 'known_entities[0].name',
    check: (record) => {
      expect(record.entities.map((entity) => entity.name)).toEqual(['Kept']);
      expect(record.sessions.map((session) => session.date)).toEqual(['2026-06-03']);
      expect(record.notes.map((note) => note.text)).toEqual(['kept']);
    },
  },
  {
    file: 'deep.l5.yaml',
    yaml: [
      'agent: {id: deep, type: other}',
      `known_entities: [{name: Kept, summary: ${DEEP}, extra: ${DEEP}}]`,
      `extra_block: ${DEEP}`,
    ].join('\n'),
    field: 'known_entities[0].summary',
    check: (record) => {
      expect(record.entities).toHaveLength(1);
      expect(record.entities[0]).toMatchObject({ name: 'Kept', summary: null });
    },
  },
  {
    file: 'huge.l5.yaml',
    yaml: [
      'agent: {id: huge, type: other}',
      `known_entities: [{name: ${HUGE}}, {name: Kept, tags: [{${HUGE}: 1}]}]`,
    ].join('\n'),
    field: 'known_entities[1].tags[0]',
    check: (record) => {
      expect(record.entities.map((entity) => entity.name.length)).toEqual([HUGE.length, 4]);
      expect(record.entities[1]?.tags).toEqual([]);
    },
  },
  {
    file: 'control.l5.yaml',
    yaml: [
      'agent: {id: control, type: other}',
      'known_entities: [{name: "bell\\u0007", type: {"\\e[2J\\u0007": 1}}]',
    ].join('\n'),
    field: 'known_entities[0].type',
    check: (record) => {
      expect(record.entities).toEqual([expect.objectContaining({ name: 'bell\u0007', type: null })]);
    },
  },
  {
    file: 'dates.l5.yaml',
    yaml: [
      'agent: {id: dates, type: other}',
      "recent_sessions: [{date: '2024-13-45'}, {date: '2026-06-04'}]",
      "notes: [{date: '2026-02-30', text: impossible}, {date: '2026-02-28', text: kept}]",
    ].join('\n'),
    field: 'notes[0].date',
    check: (record) => {
      // A session whose date names no day is kept, undated (the engine's lenience); a note needs a day.
      expect(record.sessions.map((session) => [session.date, session.day])).toEqual([
        ['2024-13-45', null],
        ['2026-06-04', '2026-06-04'],
      ]);
      expect(record.notes.map((note) => note.text)).toEqual(['kept']);
    },
  },
];

function expectOneWarningEach(warnings: readonly string[], dir: string): void {
  for (const shape of SHAPES) {
    const own = warnings.filter((message) => message.includes(path.join(dir, shape.file)));
    expect(own, shape.file).toHaveLength(1);
    expect(own[0]).toContain(`(${shape.field}: expected`);
    // The warning names the field, never the value: no terminal control, no megabyte of text.
    // eslint-disable-next-line no-control-regex -- the point: no control character reaches the terminal
    expect(own[0]).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(at(own, 0).length).toBeLessThan(400);
  }
}

describe('values that do not fit the L5 model', () => {
  let root: string;

  beforeAll(() => {
    root = tempDir('bourdon-model-');
    const agents = path.join(root, 'agents');
    fs.mkdirSync(agents);
    const machine = path.join(root, 'pulled', 'desk', 'agents');
    fs.mkdirSync(machine, { recursive: true });
    fs.writeFileSync(
      path.join(root, 'pulled', 'desk', 'publication.json'),
      JSON.stringify({ machine: 'desk', access_level: 'private' }),
    );
    for (const shape of SHAPES) {
      fs.writeFileSync(path.join(agents, shape.file), shape.yaml);
      // The same manifest as another machine published it (no agent.id: its file names it).
      const published = shape.yaml
        .replace(/^agent: \{id: [\w-]+(, )?/m, 'agent: {')
        .replace('agent: {}', 'agent: {type: other}');
      fs.writeFileSync(path.join(machine, shape.file), published);
    }
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("a library's agents/: every manifest loads with what fits, one warning each naming the file and field", () => {
    const warnings: string[] = [];
    const store = new LibraryStore(root, { warn: (message) => warnings.push(message) });
    const snapshot = store.snapshot();
    expect(snapshot.broken).toEqual([]);
    for (const shape of SHAPES) {
      const record = snapshot.agents.find((agent) => agent.file === shape.file && !agent.origin);
      expect(record, shape.file).toBeDefined();
      shape.check(record!);
    }
    expectOneWarningEach(warnings, path.join(root, 'agents'));
  });

  it('a pulled sync branch: the same values left out, served under the machine, one warning each', () => {
    const warnings: string[] = [];
    const store = new LibraryStore(root, { warn: (message) => warnings.push(message) });
    const pulled = store.snapshot().agents.filter((agent) => agent.origin?.machine === 'desk');
    expect(pulled.map((agent) => agent.id).sort()).toEqual(
      SHAPES.map((shape) => `sync:desk:${shape.file.replace('.l5.yaml', '')}`).sort(),
    );
    for (const shape of SHAPES) shape.check(pulled.find((agent) => agent.file === shape.file)!);
    expectOneWarningEach(warnings, path.join(root, 'pulled', 'desk', 'agents'));
  });
});

describe("a participant's export that does not fit", () => {
  const participant = (manifest: Record<string, unknown>): Participant => ({
    agentId: 'misfit',
    topic: 'misfit',
    watch: { follow: 'sources' },
    help: { summary: 'a participant whose output does not fit', reads: 'nothing' },
    sources: () => Promise.resolve([]),
    // Typed participants cannot build such a manifest: the runner still checks what it is given.
    export: () => Promise.resolve({ manifest: manifest as unknown as Manifest, sources: [], warnings: [] }),
  });
  const manifest = (entities: unknown[]) => ({
    spec_version: '0.1',
    agent: { id: 'misfit', type: 'other', role_narrative: 'x' },
    last_updated: '2026-06-01T00:00:00+00:00',
    recent_sessions: [{ date: '2026-06-01', key_actions: ['did a thing'] }],
    known_entities: entities,
    visibility_policy: { default: 'team' },
  });

  it('loses only the value that does not fit, with one warning naming it (issue 50); a broken agent block is refused whole', async () => {
    const dir = tempDir('bourdon-model-export-');
    try {
      const out = path.join(dir, 'misfit.l5.yaml');
      const environment = exportEnvironment({ HOME: dir }, { cwd: dir });
      const report = await runExport(
        participant(manifest([{ name: 'Fine' }, { name: 42, type: 'project' }, { name: 'Tagged', tags: ['ok', 7] }])),
        environment,
        { accessLevel: 'team', out, dryRun: false },
      );
      expect(report.outcome).toBe('exported');
      expect(report.warnings).toEqual([
        'left out 2 values that do not fit the L5 model (known_entities[1].name: expected text, found a number)',
      ]);
      expect(report.counts).toMatchObject({ entities: 2, sessions: 1 });
      const written = fs.readFileSync(out, 'utf8');
      expect(written).toContain('name: Fine');
      expect(written).toMatch(/name: Tagged\n\s+tags:\n\s+- ok\n/);
      expect(written).not.toContain('42');
      // Nothing of a manifest whose agent block does not fit is written.
      fs.rmSync(out);
      const broken = { ...manifest([{ name: 'Fine' }]), agent: { id: 'misfit', type: 7 } };
      await expect(
        runExport(participant(broken), environment, { accessLevel: 'team', out, dryRun: false }),
      ).rejects.toThrow(
        /^misfit: the export does not fit the L5 model at agent\.type: expected text, found a number; nothing was written$/,
      );
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
