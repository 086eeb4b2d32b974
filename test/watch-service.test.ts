/**
 * `bourdon watch --install` / `--uninstall` (issue 53): the per-user service file, written under
 * the (private) HOME — the systemd user unit on Linux, checked whole here; the launchd agent's
 * plist, checked from the function that writes it — and never a call to the real service
 * manager from a test: the test runner's HOME has no systemd user manager, and the command says
 * so with the command to run instead. `bourdon doctor` then says whether the service is
 * installed and running, and when it last exported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/fixtures.js';
import { memoryFile, startWatch, writeFile, type RunningWatch } from './helpers/watch.js';
import { launchdPlist, systemdUnit } from '../src/watch/service.js';

let running: RunningWatch[] = [];
afterEach(async () => {
  for (const watch of running) if (watch.child.exitCode === null) await watch.stop('SIGKILL');
  running = [];
});

function stand() {
  const home = tempDir('bourdon-service-home-');
  const config = path.join(home, '.bourdon');
  const library = path.join(home, 'agent library');
  return { home, config, library, env: { HOME: home, BOURDON_HOME: config } };
}

describe('bourdon watch --install (Linux: a systemd user unit)', () => {
  it.runIf(process.platform === 'linux')(
    'writes the unit under HOME/.config/systemd/user, asks no service manager in a test, and removes it',
    async () => {
      const s = stand();
      const unit = path.join(s.home, '.config', 'systemd', 'user', 'bourdon-watch.service');
      const installed = await runCli(['watch', '--install', '--library', s.library], { env: s.env });
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toContain(`installed the watch service: systemd user unit ${unit}`);
      expect(installed.stdout).toContain('not asked of the service manager');
      expect(installed.stdout).toContain(
        'systemctl --user daemon-reload && systemctl --user enable --now bourdon-watch.service',
      );
      const text = fs.readFileSync(unit, 'utf8');
      expect(text).toContain(`ExecStart="${process.execPath}" "`);
      expect(text).toContain(`"watch" "--library" "${s.library}"`);
      expect(text).toContain(`StandardOutput=append:${path.join(s.config, 'watch.log')}`);
      expect(text).toContain('WantedBy=default.target');
      expect(text).toContain(`Environment="BOURDON_HOME=${s.config}"`);

      const doctor = await runCli(['doctor', '--offline', '--json', '--library', s.library], { env: s.env });
      const check = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === 'watch');
      expect(check.verdict).toBe('warn');
      expect(check.summary).toMatch(/^the systemd user unit is installed but not running/);

      const again = await runCli(['watch', '--install', '--json', '--library', s.library], { env: s.env });
      expect(JSON.parse(again.stdout).outcome).toBe('replaced');

      const removed = await runCli(['watch', '--uninstall', '--library', s.library], { env: s.env });
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`removed the watch service (systemd user unit ${unit})`);
      expect(fs.existsSync(unit)).toBe(false);
      const none = await runCli(['watch', '--uninstall'], { env: s.env });
      expect(none.stdout).toContain('no watch service to remove');
    },
    60_000,
  );

  it.runIf(process.platform === 'linux')('follows XDG_CONFIG_HOME', async () => {
    const s = stand();
    const xdg = path.join(s.home, 'xdg');
    const result = await runCli(['watch', '--install', '--json', '--library', s.library], {
      env: { ...s.env, XDG_CONFIG_HOME: xdg },
    });
    expect(JSON.parse(result.stdout).file).toBe(path.join(xdg, 'systemd', 'user', 'bourdon-watch.service'));
  });
});

describe('the launchd agent (macOS)', () => {
  it('runs this Node and CLI on the library at login, keeps it alive on failure, and logs to watch.log', () => {
    const plist = launchdPlist(
      {
        node: '/usr/local/bin/node',
        cli: '/opt/bourdon/bin/run.js',
        library: '/Users/a&b/agent library',
        env: { PATH: '/usr/bin' },
      },
      '/Users/a&b/.bourdon/watch.log',
    );
    expect(plist).toContain('<key>Label</key>\n\t<string>dev.bourdon.watch</string>');
    expect(plist).toContain(
      [
        '\t<key>ProgramArguments</key>',
        '\t<array>',
        '\t\t<string>/usr/local/bin/node</string>',
        '\t\t<string>/opt/bourdon/bin/run.js</string>',
        '\t\t<string>watch</string>',
        '\t\t<string>--library</string>',
        '\t\t<string>/Users/a&amp;b/agent library</string>',
        '\t</array>',
      ].join('\n'),
    );
    expect(plist).toContain('<key>RunAtLoad</key>\n\t<true/>');
    expect(plist).toContain('<key>SuccessfulExit</key>\n\t\t<false/>');
    expect(plist).toContain('<key>StandardOutPath</key>\n\t<string>/Users/a&amp;b/.bourdon/watch.log</string>');
    expect(plist).toContain('<key>StandardErrorPath</key>\n\t<string>/Users/a&amp;b/.bourdon/watch.log</string>');
    expect(plist).toContain('<key>PATH</key>\n\t\t<string>/usr/bin</string>');
  });

  it('quotes a systemd command line so a path with spaces, quotes or % is one word', () => {
    const unit = systemdUnit({ node: '/n', cli: '/c', library: '/lib "x" 100%', env: {} }, '/log');
    expect(unit).toContain('ExecStart="/n" "/c" "watch" "--library" "/lib \\"x\\" 100%%"');
  });
});

describe('bourdon doctor: the watch', () => {
  it('says a watch running in a terminal, and when it last exported', async () => {
    const s = stand();
    writeFile(path.join(s.home, '.cascade-bourdon', 'memory.md'), memoryFile(['Alpha']));
    const watch = startWatch(['--library', s.library], s.env);
    running.push(watch);
    await watch.waitFor((e) => e.event === 'exported' && e.agent === 'cascade');
    const doctor = await runCli(['doctor', '--offline', '--json', '--library', s.library], { env: s.env });
    const check = JSON.parse(doctor.stdout).checks.find((c: { id: string }) => c.id === 'watch');
    expect(check.verdict).toBe('ok');
    expect(check.summary).toContain(`running (pid ${watch.child.pid}`);
    expect(check.summary).toContain('in a terminal');
    expect(check.summary).toMatch(/last export: cascade at \d{4}-/);
    await watch.stop();
    const after = await runCli(['doctor', '--offline', '--json', '--library', s.library], { env: s.env });
    const stopped = JSON.parse(after.stdout).checks.find((c: { id: string }) => c.id === 'watch');
    expect(stopped.verdict).toBe('info');
    expect(stopped.summary).toMatch(/^not running; .*last export: cascade at/);
  }, 60_000);
});
