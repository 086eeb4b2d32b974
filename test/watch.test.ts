/**
 * `bourdon watch` (issue 53), the real binary with a real watcher over a temp home: it exports
 * only the agent whose source changed, through the export path (history, audit, rollback); a
 * burst is one export; a second watch is refused; a stop leaves no lock and no half-written
 * file; and the faults — a source deleted and recreated, a source folder that appears after the
 * start, a failing agent, the library inside a followed folder (its own writes never loop), the
 * warm export worker killed (a new one exports). No timing is asserted: each test waits for the events it expects, and a marker write to
 * another agent orders what must not have happened before it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { bareRemote, remoteHead } from './helpers/sync.js';
import { tempDir } from './helpers/fixtures.js';
import { libraryHas, memoryFile, startWatch, writeFile, type RunningWatch } from './helpers/watch.js';

let running: RunningWatch[] = [];
afterEach(async () => {
  for (const watch of running) if (watch.child.exitCode === null) await watch.stop('SIGKILL');
  running = [];
});

interface Stand {
  home: string;
  library: string;
  env: { HOME: string; BOURDON_HOME: string };
  cascade: string;
  copilot: string;
  watch(args?: string[]): RunningWatch;
}

function stand(): Stand {
  const home = tempDir('bourdon-watch-home-');
  const library = path.join(tempDir('bourdon-watch-lib-'), 'library');
  const env = { HOME: home, BOURDON_HOME: tempDir('bourdon-watch-config-') };
  return {
    home,
    library,
    env,
    cascade: path.join(home, '.cascade-bourdon', 'memory.md'),
    copilot: path.join(home, '.copilot-bourdon', 'memory.md'),
    watch(args = []) {
      const watch = startWatch(['--library', library, ...args], env);
      running.push(watch);
      return watch;
    },
  };
}

const isExport = (agent: string) => (event: { event: string; agent?: string }) =>
  event.agent === agent && ['exported', 'unchanged', 'staged', 'nothing', 'failed'].includes(event.event);

describe('bourdon watch: what it exports', () => {
  it('exports only the agent whose source changed, as `<agent> export` does (history, audit, rollback)', async () => {
    const s = stand();
    writeFile(s.cascade, memoryFile(['Alpha']));
    writeFile(s.copilot, memoryFile(['Beta'], 'Copilot Bourdon Memory'));
    const watch = s.watch();
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot');
    const from = watch.events.length;
    writeFile(s.cascade, memoryFile(['Alpha', 'Gamma']));
    const exported = await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from });
    expect(exported.message).toBe('exported cascade: 1 entity changed (version 2)');
    expect(exported.version).toBe(2);
    expect(watch.events.slice(from).filter(isExport('copilot'))).toEqual([]);
    expect(libraryHas(s.library, 'cascade', 'Gamma')).toBe(true);
    // The audit log names the export as `bourdon cascade export` would.
    const audit = fs.readFileSync(path.join(s.env.BOURDON_HOME, 'audit.jsonl'), 'utf8');
    expect(audit).toContain('participant:cascade');
    // And it rolls back like any version.
    const rollback = await runCli(['rollback', 'cascade', '1', '--yes', '--library', s.library], { env: s.env });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(libraryHas(s.library, 'cascade', 'Gamma')).toBe(false);
  }, 90_000);

  it('makes a burst of 100 writes to one source at most 2 exports', async () => {
    const s = stand();
    writeFile(s.cascade, memoryFile(['Alpha']));
    writeFile(s.copilot, memoryFile(['Beta'], 'Copilot Bourdon Memory'));
    const watch = s.watch();
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    const from = watch.events.length;
    const names = ['Alpha'];
    for (let i = 0; i < 100; i++) {
      names.push(`Burst ${i}`);
      fs.writeFileSync(s.cascade, memoryFile(names));
    }
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from });
    // A marker after the burst: its export comes after every export the burst caused.
    const marker = watch.events.length;
    fs.writeFileSync(s.copilot, memoryFile(['Beta', 'Marker'], 'Copilot Bourdon Memory'));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot', { from: marker });
    expect(libraryHas(s.library, 'cascade', 'Burst 99')).toBe(true);
    expect(watch.events.slice(from).filter(isExport('cascade')).length).toBeLessThanOrEqual(2);
  }, 90_000);
});

describe('bourdon watch: one per library, stopped cleanly', () => {
  it('refuses a second watch on the same library in one line naming the first (pid)', async () => {
    const s = stand();
    const first = s.watch(['--no-catch-up']);
    await first.waitFor((e) => e.event === 'watching');
    const second = await runCli(['watch', '--library', s.library], { env: s.env });
    expect(second.code).toBe(8);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`a watch is already running on this library (pid ${first.child.pid}`);
  }, 60_000);

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops on ${signal}: exit 0, the lock released, no half-written file, the status says stopped`, async () => {
      const s = stand();
      writeFile(s.cascade, memoryFile(['Alpha']));
      const watch = s.watch();
      await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
      // Stopped while an export may be in flight: it finishes, or never starts.
      writeFile(s.cascade, memoryFile(['Alpha', 'Late']));
      expect(await watch.stop(signal)).toBe(0);
      expect(watch.events.at(-1)?.event).toBe('stopped');
      expect(fs.existsSync(path.join(s.library, '.bourdon-watch.lock'))).toBe(false);
      const leftovers = fs.readdirSync(path.join(s.library, 'agents')).filter((name) => !name.endsWith('.l5.yaml'));
      expect(leftovers).toEqual([]);
      const status = JSON.parse(fs.readFileSync(path.join(s.library, '.bourdon-watch.json'), 'utf8'));
      expect(status.stopped).not.toBeNull();
      expect(status.agents.cascade.exported_at).not.toBeNull();
      // No stale lock: the next watch starts at once.
      const next = s.watch(['--no-catch-up']);
      await next.waitFor((e) => e.event === 'watching');
    }, 60_000);
  }
});

describe('bourdon watch: faults', () => {
  it('follows a source deleted and recreated', async () => {
    const s = stand();
    writeFile(s.cascade, memoryFile(['Alpha']));
    const watch = s.watch();
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    let from = watch.events.length;
    fs.rmSync(s.cascade);
    await watch.waitFor(isExport('cascade'), { from });
    from = watch.events.length;
    writeFile(s.cascade, memoryFile(['Delta']));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from });
    expect(libraryHas(s.library, 'cascade', 'Delta')).toBe(true);
  }, 60_000);

  it('follows a source folder that appears after it started', async () => {
    const s = stand();
    writeFile(s.cascade, memoryFile(['Alpha']));
    const watch = s.watch();
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    expect(fs.existsSync(path.dirname(s.copilot))).toBe(false);
    const from = watch.events.length;
    writeFile(s.copilot, memoryFile(['Newcomer'], 'Copilot Bourdon Memory'));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot', { from });
    expect(libraryHas(s.library, 'copilot', 'Newcomer')).toBe(true);
  }, 60_000);

  it('says a failing agent once, tries it again on its next change, and the others go on', async () => {
    const s = stand();
    writeFile(s.cascade, memoryFile(['Alpha']));
    writeFile(s.copilot, memoryFile(['Beta'], 'Copilot Bourdon Memory'));
    // The export cannot write cascade's manifest: a folder stands where the file goes.
    const blocker = path.join(s.library, 'agents', 'cascade.l5.yaml');
    fs.mkdirSync(blocker, { recursive: true });
    const watch = s.watch();
    await watch.waitFor((e) => e.event === 'failed' && e.agent === 'cascade');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot');
    // Changed again, still failing: not said again; copilot, changed after it, still exports.
    const from = watch.events.length;
    writeFile(s.cascade, memoryFile(['Alpha', 'Again']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFile(s.copilot, memoryFile(['Beta', 'Still'], 'Copilot Bourdon Memory'));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'copilot', { from });
    expect(watch.events.filter((e) => e.event === 'failed' && e.agent === 'cascade')).toHaveLength(1);
    // Mended: the next change exports it, said so.
    fs.rmSync(blocker, { recursive: true });
    const mended = watch.events.length;
    writeFile(s.cascade, memoryFile(['Alpha', 'Mended']));
    const back = await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from: mended });
    expect(back.message).toContain('(working again)');
    expect(libraryHas(s.library, 'cascade', 'Mended')).toBe(true);
  }, 90_000);

  it.runIf(process.platform === 'linux')(
    'exports on through a new export worker when its worker is killed',
    async () => {
      const s = stand();
      writeFile(s.cascade, memoryFile(['Alpha']));
      const watch = s.watch();
      await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
      // The warm export worker is the watch's one child process.
      const pid = watch.child.pid!;
      const children = fs
        .readdirSync(`/proc/${pid}/task`)
        .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean));
      expect(children).toHaveLength(1);
      process.kill(Number(children[0]), 'SIGKILL');
      const from = watch.events.length;
      writeFile(s.cascade, memoryFile(['Alpha', 'After the kill']));
      await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from });
      expect(libraryHas(s.library, 'cascade', 'After the kill')).toBe(true);
    },
    60_000,
  );

  it('never follows its own writes: a library inside a followed folder exports once per change', async () => {
    const s = stand();
    // Claude desktop's session store is followed whole (no file filter); the library sits in it.
    const store = path.join(s.home, '.config', 'Claude', 'claude-code-sessions');
    const session = path.join(store, 'acct', 'org', 'local_one.json');
    const sessionJson = (title: string) =>
      JSON.stringify({
        sessionId: 'local_one',
        cwd: '/home/dev/p',
        createdAt: Date.UTC(2026, 3, 1),
        lastActivityAt: Date.UTC(2026, 3, 1, 1),
        title,
      });
    writeFile(session, sessionJson('First title'));
    writeFile(s.cascade, memoryFile(['Alpha']));
    const library = path.join(store, 'library');
    const watch = startWatch(['--library', library], s.env);
    running.push(watch);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'claude-desktop-code');
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    const from = watch.events.length;
    writeFile(session, sessionJson('Second title'));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'claude-desktop-code', { from });
    // Its own writes (manifest, history, status) would have been changes in the followed folder.
    const marker = watch.events.length;
    writeFile(s.cascade, memoryFile(['Alpha', 'Marker']));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade', { from: marker });
    await new Promise((resolve) => setTimeout(resolve, 500));
    writeFile(s.cascade, memoryFile(['Alpha', 'Marker', 'Second marker']));
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade' && e.version === 3, { from: marker });
    expect(watch.events.slice(from).filter(isExport('claude-desktop-code'))).toHaveLength(1);
  }, 90_000);
});

describe('bourdon watch: the sync remote', () => {
  it('pushes after an export, says a remote that went away once, and pushes when it is back', async () => {
    const s = stand();
    const remote = bareRemote();
    fs.mkdirSync(path.join(s.library, 'agents'), { recursive: true });
    const env = { ...s.env, BOURDON_LOCAL_NAME: 'desk' };
    const init = await runCli(['sync', 'init', remote, '--library', s.library], { env, timeoutMs: 60_000 });
    expect(init.code, init.stderr).toBe(0);
    fs.renameSync(remote, `${remote}.away`);
    writeFile(s.cascade, memoryFile(['Alpha']));
    const watch = startWatch(['--library', s.library, '--retry', '1', '--pull', '1'], env);
    running.push(watch);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    await watch.waitFor((e) => e.event === 'sync failed' && e.message.startsWith('sync push failed'));
    // Retried every second or two meanwhile, said once per direction.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const failures = watch.events.filter((e) => e.event === 'sync failed');
    expect(failures.map((e) => e.message.split(':')[0]).sort()).toEqual(['sync pull failed', 'sync push failed']);
    expect(remoteHead(`${remote}.away`)).toBeNull();
    fs.renameSync(`${remote}.away`, remote);
    await watch.waitFor((e) => e.event === 'pushed', { ms: 60_000 });
    await watch.waitFor((e) => e.event === 'sync working' && e.message === 'sync push works again');
    expect(remoteHead(remote)).not.toBeNull();
    const status = JSON.parse(fs.readFileSync(path.join(s.library, '.bourdon-watch.json'), 'utf8'));
    expect(status.sync.push).not.toBeNull();
  }, 120_000);
});
