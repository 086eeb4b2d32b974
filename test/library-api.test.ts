/** The library API, imported by package name as a program would import it. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FIXTURE_LIBRARY, REPO_ROOT } from './helpers/fixtures.js';

const PROGRAM = `
import { LibraryStore, createContext, findEntity, createMcpServer, runHttpServer, FederationRegistry, runWithCaller, ALL_TOOLS } from 'bourdon';
const ctx = createContext(new LibraryStore(process.argv[1], { warn: () => {} }));
const payload = await findEntity(ctx, { name: 'bdn' });
const server = createMcpServer(ctx.store, { auditPath: null });
process.stdout.write(JSON.stringify({
  matches: payload.matches.map((m) => m.name),
  tools: ALL_TOOLS.length,
  exports: [typeof runHttpServer, typeof FederationRegistry, typeof runWithCaller, typeof server.connect],
}));
`;

describe("import … from 'bourdon'", () => {
  it('exposes the store, the operations and the servers', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROGRAM, FIXTURE_LIBRARY], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({
      matches: ['Bourdon'],
      tools: 16,
      exports: ['function', 'function', 'function', 'function'],
    });
  });
});
