/**
 * The engine's claude_code rules on homes shaped differently from the recorded cases (issue 35):
 * a home with only a knowledge graph, whose entries have empty or blank names or padded
 * observations, and notes whose frontmatter is not a mapping (a list, a scalar, nothing) or
 * cannot be loaded at all (malformed, unclosed, an unknown tag, a list as a key). Each home is
 * real files in a temp folder, exported as the runner does (filtered at `team`); the expected
 * manifests are worked out by hand from the engine's rules (docs/participants.md, "claude-code").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeParticipant } from '../src/participants/claude-code/index.js';
import { finishManifest } from '../src/participants/finish.js';
import type { ManifestData } from '../src/participants/kit/participant.js';
import { tempDir } from './helpers/fixtures.js';
import { exportEnvironment } from './helpers/participant-cases.js';

const POLICY = {
  default: 'public',
  private_tags: ['personal', 'financial', 'credential', 'health', 'family', 'legal'],
  team_tags: ['internal-roadmap'],
};

/** A home holding `files` (path relative to the home → text). */
function homeWith(files: Record<string, string>): string {
  const home = path.join(tempDir('bourdon-cc-rules-'), 'home');
  for (const [relative, text] of Object.entries(files)) {
    const file = path.join(home, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return home;
}

/** The manifest `bourdon claude-code export` would write for the home, without its narrative. */
async function exported(home: string): Promise<ManifestData> {
  const result = await claudeCodeParticipant.export(exportEnvironment(home));
  expect(result.manifest).toBeDefined();
  const { manifest } = finishManifest(result.manifest!, 'team');
  delete (manifest.agent as Record<string, unknown>).role_narrative;
  return manifest;
}

/** The engine's manifest for these capabilities, sessions and entities (its key order). */
function engineManifest(
  capabilities: string[],
  sessions: Record<string, unknown>[],
  entities: Record<string, unknown>[],
): ManifestData {
  const manifest: ManifestData = {
    spec_version: '0.1',
    agent: { id: 'claude-code', type: 'code-assistant', instance: 'h', spec_version_compat: '>=0.1' },
    last_updated: '2026-05-01T12:00:00+00:00',
    capabilities,
  };
  if (sessions.length) manifest.recent_sessions = sessions;
  if (entities.length) manifest.known_entities = entities;
  manifest.visibility_policy = POLICY;
  manifest.known_entities ??= [];
  manifest.recent_sessions ??= [];
  return manifest;
}

const graphLine = (name: string, entityType: string, observations: unknown[]) =>
  JSON.stringify({ type: 'entity', name, entityType, observations });

describe('claude-code: a home with only a knowledge graph', () => {
  it('has no entity for a name that is empty or strips to nothing, and strips graph summaries', async () => {
    const home = homeWith({
      'claude-memory/memory.jsonl': [
        graphLine('Atlas', 'entity/project', ['Serves map tiles.', 'Written in Go.']),
        // The engine skips an entity without a name, and merges nothing under a blank one.
        graphLine('', 'project', ['An entity whose name is empty.']),
        graphLine('   ', 'project', ['An entity whose name is spaces.']),
        graphLine('\u3000\x1f', 'project', ['Whitespace only as Python strips it.']),
        // Its summary is cut to 500 characters and stripped, as note summaries are.
        graphLine('Padded', 'service', ['  spaces around  ']),
        graphLine('Blank Notes', 'doc', ['   ']),
        JSON.stringify({ type: 'relation', from: 'Atlas', to: '', relationType: 'uses' }),
      ].join('\n'),
    });
    expect(await exported(home)).toEqual(
      engineManifest(
        ['knowledge_graph'],
        [],
        [
          { name: 'Atlas', type: 'project', summary: 'Serves map tiles. | Written in Go.', tags: ['project'] },
          { name: 'Blank Notes', type: 'doc', tags: ['doc'] },
          { name: 'Padded', type: 'service', summary: 'spaces around', tags: ['service'] },
        ],
      ),
    );
  });

  it('a graph of nothing but nameless entities still publishes the capability, with no entity', async () => {
    const home = homeWith({
      'claude-memory/memory.jsonl': [graphLine('', 'project', ['x']), graphLine(' ', 'thing', ['y'])].join('\n'),
    });
    expect(await exported(home)).toEqual(engineManifest(['knowledge_graph'], [], []));
  });

  it('the same blank names from auto-memory are dropped too; a note named `.md` keeps that name', async () => {
    const memory = '.claude/projects/-p/memory/';
    const home = homeWith({
      [`${memory}MEMORY.md`]: 'index\n',
      [`${memory}blank.md`]: '---\nname: "  "\ndescription: A blank name.\n---\n',
      // Python's Path('.md').stem is '.md': the name the engine gives a note with no other.
      [`${memory}.md`]: 'A note whose file name is only the suffix.\n',
      'claude-memory/memory.jsonl': graphLine(' ', 'project', ['Blank in the graph too.']),
    });
    expect(await exported(home)).toEqual(
      engineManifest(
        ['auto_memory', 'knowledge_graph'],
        [],
        [{ name: '.md', summary: 'A note whose file name is only the suffix.' }],
      ),
    );
  });
});

/** One auto-memory note per entry (file name → text), exported; the entities by name. */
async function noteEntities(notes: Record<string, string>): Promise<Record<string, unknown>[]> {
  const memory = '.claude/projects/-p/memory/';
  const files: Record<string, string> = { [`${memory}MEMORY.md`]: 'index\n' };
  for (const [name, text] of Object.entries(notes)) files[memory + name] = text;
  const manifest = await exported(homeWith(files));
  return manifest.known_entities as Record<string, unknown>[];
}

describe('claude-code: frontmatter that is not a mapping', () => {
  it('a list, a scalar, a date, a set or nothing: no frontmatter, and the body after it is the summary', async () => {
    const entities = await noteEntities({
      'list.md': '---\n- a\n- b\n---\n\nThe body after a list.\n',
      'list-of-maps.md': '---\n- name: Not a name\n  description: Not a description\n---\nBody after maps in a list.\n',
      'scalar.md': '---\njust a sentence\n---\n# Scalar Title -- subtitle\n\nBody after a scalar.\n',
      'number.md': '---\n2026\n---\nBody after a number.\n',
      'date.md': '---\n2026-04-30\n---\nBody after a date.\n',
      'set.md': '---\n!!set {a, b}\n---\nBody after a set.\n',
      'empty.md': '---\n\n---\nBody after empty frontmatter.\n',
      'comment.md': '---\n# only a comment\n---\nBody after a comment.\n',
      'null.md': '---\n~\n---\nBody after null.\n',
      'crlf.md': '---\r\n- a\r\n---\r\nBody after a CRLF list.\r\n',
    });
    expect(entities).toEqual([
      { name: 'comment', summary: 'Body after a comment.' },
      { name: 'crlf', summary: 'Body after a CRLF list.' },
      { name: 'date', summary: 'Body after a date.' },
      { name: 'empty', summary: 'Body after empty frontmatter.' },
      { name: 'list', summary: 'The body after a list.' },
      { name: 'list-of-maps', summary: 'Body after maps in a list.' },
      { name: 'null', summary: 'Body after null.' },
      { name: 'number', summary: 'Body after a number.' },
      { name: 'Scalar Title', summary: 'Body after a scalar.' },
      { name: 'set', summary: 'Body after a set.' },
    ]);
  });

  it('YAML PyYAML cannot load, or no closing line: no frontmatter, and the whole text is the body', async () => {
    const entities = await noteEntities({
      'malformed.md': '---\nbad: [unclosed\n---\nBody after malformed YAML.\n',
      'unclosed.md': '---\nname: Never closed\n\nBody of an unclosed note.\n',
      // The closing line is looked for after the opening one: `---\n---\n` never closes.
      'two-rules.md': '---\n---\nBody right after two rules.\n',
      // safe_load knows no local tags, and a list cannot be a key (unhashable).
      'tagged.md': '---\n!custom value\n---\nBody after an unknown tag.\n',
      'tagged-value.md': '---\nname: !custom Tagged\n---\nBody after a tagged value.\n',
      'list-key.md': '---\n? [a, b]\n: c\n---\nBody after a list key.\n',
      'two-documents.md': '---\nname: One\n...\n--- \nname: Two\n---\nBody after two documents.\n',
    });
    expect(entities).toEqual([
      { name: 'list-key', summary: '--- ? [a, b] : c --- Body after a list key.' },
      { name: 'malformed', summary: '--- bad: [unclosed --- Body after malformed YAML.' },
      { name: 'tagged', summary: '--- !custom value --- Body after an unknown tag.' },
      { name: 'tagged-value', summary: '--- name: !custom Tagged --- Body after a tagged value.' },
      { name: 'two-documents', summary: '--- name: One ... --- name: Two --- Body after two documents.' },
      { name: 'two-rules', summary: '--- --- Body right after two rules.' },
      { name: 'unclosed', summary: '--- name: Never closed' },
    ]);
  });

  it('brain projects and logs take the body after non-mapping frontmatter too', async () => {
    const home = homeWith({
      'claude-brain/PROJECTS/Kite/OVERVIEW.md': '---\n- kite\n---\n# Kite\n\nA kite simulator.\n\n## Status\nActive\n',
      'claude-brain/PROJECTS/Reel/OVERVIEW.md': '---\n- reel\n---\nA fishing reel tracker.\n',
      'claude-brain/LOG/2026-04-30-laptop.md': '---\nlaptop\n---\nShipped the kite launcher.\n',
      'claude-brain/LOG/2026-04-29.md': '---\n[a, b\n---\nMalformed, so the whole text.\n',
    });
    expect(await exported(home)).toEqual(
      engineManifest(
        ['claude_brain'],
        [
          {
            date: '2026-04-30',
            key_actions: ['Shipped the kite launcher.'],
            files_touched: ['LOG/2026-04-30-laptop.md'],
          },
          {
            date: '2026-04-29',
            key_actions: ['--- [a, b --- Malformed, so the whole text.'],
            files_touched: ['LOG/2026-04-29.md'],
          },
        ],
        [
          { name: 'Kite', type: 'project', summary: 'A kite simulator.', tags: ['active'] },
          { name: 'Reel', type: 'project', summary: 'A fishing reel tracker.' },
        ],
      ),
    );
  });
});
