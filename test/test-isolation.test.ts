/**
 * The suite never touches the user's own folders: it runs under a HOME (and BOURDON_HOME) of its
 * own, and the run fails when something appears in the real ones anyway (test/helpers/private-home.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/fixtures.js';
import setupPrivateHome from './helpers/private-home.js';

const runEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in runEnv)) delete process.env[name];
  Object.assign(process.env, runEnv);
});

describe('the run-wide private HOME', () => {
  it('every test sees a HOME of the run, with BOURDON_HOME inside it, and no BOURDON_LIBRARY', () => {
    expect(path.basename(os.homedir())).toMatch(/^bourdon-vitest-home-/);
    expect(process.env.BOURDON_HOME).toBe(path.join(os.homedir(), '.bourdon'));
    expect(process.env.BOURDON_LIBRARY).toBeUndefined();
  });

  it('fails the run when a test writes into the real home or the real BOURDON_HOME', () => {
    const realHome = tempDir('bourdon-real-home-');
    fs.mkdirSync(path.join(realHome, '.bourdon'));
    process.env.HOME = realHome;
    process.env.BOURDON_HOME = path.join(realHome, '.bourdon');
    process.env.BOURDON_LIBRARY = path.join(realHome, 'agent-library');
    process.env.CODEX_HOME = path.join(realHome, '.codex');
    process.env.BOURDON_TEST_PYTHON = '/opt/py-with-mcp/bin/python';

    const teardown = setupPrivateHome();
    expect(os.homedir()).not.toBe(realHome);
    expect(process.env.BOURDON_LIBRARY).toBeUndefined();
    // What configures the run itself is kept (helpers/python-mcp.ts reads it).
    expect(process.env.BOURDON_TEST_PYTHON).toBe('/opt/py-with-mcp/bin/python');
    expect(process.env.CODEX_HOME).toBeUndefined();
    fs.mkdirSync(path.join(realHome, '.bourdon', 'cache'));
    fs.mkdirSync(path.join(realHome, '.mcp-inspector'));
    expect(() => teardown()).toThrow(/\.bourdon changed; .*\.mcp-inspector appeared/);
    // The user's variables are back.
    expect(process.env.HOME).toBe(realHome);
    expect(process.env.CODEX_HOME).toBe(path.join(realHome, '.codex'));

    const quiet = setupPrivateHome();
    fs.writeFileSync(path.join(os.homedir(), 'scratch'), 'a test may write its own HOME');
    expect(() => quiet()).not.toThrow();
  });
});
