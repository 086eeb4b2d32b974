/**
 * The CLI never prints an agent-controlled bidi override or zero-width character raw: a row's
 * `evil\u202egnp.exe` would display as another name. Every human output shows them escaped
 * (`\u202e`), as control characters are and as the page shows them. Through the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary, tempDir } from './helpers/fixtures.js';
import { at } from './helpers/items.js';

const INVISIBLE = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u200e',
  '\u200f',
  '\ufeff',
];
const escaped = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
const marked = INVISIBLE.map((ch, i) => `x${i}${ch}y`).join(' ');

let library: string;
let home: string;
beforeAll(() => {
  library = copyFixtureLibrary();
  home = tempDir('bourdon-invisible-home-');
  fs.writeFileSync(
    path.join(library, 'agents', 'sneaky.l5.yaml'),
    JSON.stringify({
      spec_version: '0.1',
      agent: { id: 'sneaky', type: 'other', role_narrative: marked },
      known_entities: [{ name: 'Invisible Ink', summary: marked }],
      recent_sessions: [{ date: '2026-06-04', project_focus: ['Bourdon'], key_actions: [marked] }],
    }),
  );
  fs.writeFileSync(
    path.join(home, 'audit.jsonl'),
    JSON.stringify({
      ts: '2026-06-05T10:00:00.000Z',
      agent: 'laptop',
      op: 'find_entity',
      namespace: '*',
      decision: 'deny',
      detail: marked,
    }) + '\n',
  );
});
afterAll(() => {
  fs.rmSync(library, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

describe('bidi overrides and zero-width characters in human output', () => {
  const cases: [string, string[]][] = [
    ['recent', ['recent', '--since', '2026-01-01', '--agent', 'sneaky', '--wide']],
    ['find', ['find', 'invisible ink']],
    ['agents', ['agents', '--wide']],
    ['audit', ['audit']],
  ];
  for (const [name, args] of cases)
    it(`bourdon ${name} shows each escaped, never raw`, async () => {
      const result = await runCli(args, { env: { BOURDON_HOME: home, BOURDON_LIBRARY: library } });
      expect(result.code, result.stderr).toBe(0);
      for (const ch of INVISIBLE) expect(result.stdout, escaped(ch)).not.toContain(ch);
      // Tables may cut a long cell; the first characters always show.
      expect(result.stdout).toContain(`x0${escaped(at(INVISIBLE, 0))}y x1${escaped(at(INVISIBLE, 1))}y`);
    });
});
