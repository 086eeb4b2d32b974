/**
 * Adapters decide from codes and shapes, never from message text: an error's exit status comes
 * from its code, a denial is recognised by its marker while its JSON stays exactly the fixture's,
 * and `--json` after `--` is an argument, not the flag.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessDeniedError, BourdonError, ERROR_CODES, UsageError } from '../src/core/errors.js';
import { isDenial } from '../src/core/payload.js';
import { denialPayload } from '../src/core/trust/policy.js';
import type { Caller } from '../src/core/trust/caller.js';
import { runCli } from './helpers/cli.js';
import { copyFixtureLibrary } from './helpers/fixtures.js';

describe('error codes', () => {
  it('the CLI exit status follows the code: usage 2, access denied 3, cancelled 130, the rest their own', () => {
    expect(new UsageError('x')).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(new AccessDeniedError('x')).toMatchObject({ code: 'access_denied', exitCode: 3 });
    expect(new BourdonError('x', 'cancelled').exitCode).toBe(130);
    expect(new BourdonError('x', 'internal').exitCode).toBe(1);
    const statuses = ERROR_CODES.map((code) => new BourdonError('x', code).exitCode);
    expect(new Set(statuses).size, 'one status per code').toBe(ERROR_CODES.length);
  });
});

describe('denial payloads', () => {
  const caller: Caller = { agent_id: 'visitor', tier: 'quarantined', grants: ['visitor'], ceiling: 'team' };

  it('are recognised by their marker, and print exactly the fields of the fixtures', () => {
    const denial = denialPayload(caller, 'rollback_agent_memory', "tier 'quarantined' may not call this tool");
    expect(isDenial(denial)).toBe(true);
    expect(JSON.stringify(denial)).toBe(
      JSON.stringify({
        error: 'access denied',
        op: 'rollback_agent_memory',
        agent: 'visitor',
        tier: 'quarantined',
        detail: "tier 'quarantined' may not call this tool",
      }),
    );
  });

  it('an error payload that merely says "access denied" is not a denial', () => {
    expect(isDenial({ error: 'access denied' })).toBe(false);
  });
});

describe('--json after --', () => {
  let library: string;
  beforeAll(() => {
    library = copyFixtureLibrary();
  });
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));

  it('is an argument (human output), while --json before -- still selects JSON', async () => {
    const human = await runCli(['find', '--library', library, '--', '--json']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('No agent knows about "--json"');
    const json = await runCli(['find', '--library', library, '--json', '--', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: '--json', matches: [] });
  });
});
