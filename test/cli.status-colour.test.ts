/**
 * Status values are coloured where colour is on, the same colour for the same meaning in every
 * table (statusStyle in src/cli/output.ts): on the real binary in a pseudo-terminal, an unreadable
 * manifest in `agents` and a revoked member in `agent list` are red, an active member and an
 * active workstream green, idle and archived workstreams dim; with NO_COLOR, or piped, the same
 * words carry no escape code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { demoLibrary } from './helpers/demo.js';
import { runInPty } from './helpers/pty.js';

let library: string;
let home: string;

const RED = (text: string) => `\u001b[31m${text}\u001b[39m`;
const GREEN = (text: string) => `\u001b[32m${text}\u001b[39m`;
const DIM = (text: string) => `\u001b[2m${text}\u001b[22m`;
// eslint-disable-next-line no-control-regex -- the escape codes are what is checked
const ESCAPE = /\u001b\[\d+m/g;

const env = (colour: boolean) => ({ BOURDON_HOME: home, BOURDON_LIBRARY: library, NO_COLOR: colour ? '' : '1' });

beforeAll(async () => {
  ({ library, home } = await demoLibrary('bourdon-colour'));
  fs.writeFileSync(path.join(library, 'agents', 'broken.l5.yaml'), 'agent: [broken\n');
  for (const args of [
    ['agent', 'add', 'gone'],
    ['agent', 'add', 'kept'],
    ['revoke', 'gone'],
    // An archived workstream (its entity carries the archived tag) and an idle one (last active long ago).
    ['commit', 'codex', '--file', '-'],
  ]) {
    const result = await runCli(args, {
      env: env(false),
      input:
        'entities:\n  - {name: Old Importer, tags: [archived]}\n' +
        'sessions:\n  - {date: "2020-01-02", cwd: /old, project_focus: [Old Importer], key_actions: [retired it]}\n' +
        '  - {date: "2020-01-03", cwd: /quiet, project_focus: [Quiet Corner], key_actions: [left it]}\n',
    });
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  }
}, 120_000);

async function shown(args: string[], colour: boolean): Promise<string> {
  const result = await runInPty(args, [], { env: env(colour), timeoutMs: 60_000 });
  expect(result.code, args.join(' ')).toBe(0);
  return result.output;
}

describe('status colours', () => {
  const cases: { args: string[]; painted: string[] }[] = [
    { args: ['agents'], painted: [RED('unreadable')] },
    { args: ['agent', 'list'], painted: [RED('revoked'), GREEN('active')] },
    {
      args: ['workstreams', '--since', '2000-01-01', '--access-level', 'team', '--wide'],
      painted: [GREEN('active'), DIM('idle'), DIM('archived')],
    },
  ];
  for (const { args, painted } of cases) {
    it(`${args.slice(0, 2).join(' ')}: coloured on a terminal, plain with NO_COLOR and piped`, async () => {
      const coloured = await shown(args, true);
      for (const text of painted) expect(coloured).toContain(text);
      const plain = await shown(args, false);
      const piped = await runCli(args, { env: { ...env(true) } });
      for (const output of [plain, piped.stdout]) {
        expect(output).not.toMatch(new RegExp(ESCAPE.source));
        for (const text of painted) expect(output).toContain(text.replace(ESCAPE, ''));
      }
    });
  }
});
