/**
 * `bourdon watch --install` / `--uninstall`: the watch as a per-user service that starts at
 * login and restarts when it fails — a systemd user unit on Linux, a launchd agent on macOS
 * (where: core/store/watch-status.ts `watchService`) — its output appended to the config dir's
 * `watch.log`, where `bourdon doctor` reads it. The file is written whole; the service manager
 * is asked to load it only when it is reachable: `systemctl --user` needs the user's manager
 * (its socket under XDG_RUNTIME_DIR; a test's private HOME has none), `launchctl` the user's GUI
 * session. When it is not, nothing is run, and the one command to run is said instead.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeError } from '../core/errors.js';
import { writeFileDurably } from '../core/fs/atomic.js';
import { envValue, type Env } from '../core/store/config.js';
import { LAUNCHD_LABEL, SYSTEMD_UNIT, watchService, type WatchService } from '../core/store/watch-status.js';

/** What the service runs: this Node, this install's CLI, `watch --library <root>`. */
export interface ServiceCommand {
  node: string;
  cli: string;
  library: string;
  /** Variables the service needs (PATH for git, BOURDON_HOME when set). */
  env: Record<string, string>;
}

/** A word of a systemd command line: double-quoted, `\` and `"` escaped, `%` doubled, `$` doubled. */
function systemdWord(word: string): string {
  return `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

export function systemdUnit(command: ServiceCommand, log: string): string {
  const exec = [command.node, command.cli, 'watch', '--library', command.library].map(systemdWord).join(' ');
  const env = Object.entries(command.env).map(([key, value]) => `Environment=${systemdWord(`${key}=${value}`)}`);
  return [
    '# Written by `bourdon watch --install`; removed by `bourdon watch --uninstall`.',
    '[Unit]',
    'Description=Bourdon: keep the agent library current (bourdon watch)',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    ...env,
    'Restart=on-failure',
    'RestartSec=30',
    `StandardOutput=append:${log.replace(/%/g, '%%')}`,
    `StandardError=append:${log.replace(/%/g, '%%')}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function launchdPlist(command: ServiceCommand, log: string): string {
  const strings = (values: readonly string[], indent: string) =>
    values.map((value) => `${indent}<string>${xml(value)}</string>`);
  const env = Object.entries(command.env).flatMap(([key, value]) => [
    `\t\t<key>${xml(key)}</key>`,
    `\t\t<string>${xml(value)}</string>`,
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `bourdon watch --install`; removed by `bourdon watch --uninstall`. -->',
    '<plist version="1.0">',
    '<dict>',
    '\t<key>Label</key>',
    `\t<string>${LAUNCHD_LABEL}</string>`,
    '\t<key>ProgramArguments</key>',
    '\t<array>',
    ...strings([command.node, command.cli, 'watch', '--library', command.library], '\t\t'),
    '\t</array>',
    '\t<key>EnvironmentVariables</key>',
    '\t<dict>',
    ...env,
    '\t</dict>',
    '\t<key>RunAtLoad</key>',
    '\t<true/>',
    '\t<key>KeepAlive</key>',
    '\t<dict>',
    '\t\t<key>SuccessfulExit</key>',
    '\t\t<false/>',
    '\t</dict>',
    '\t<key>ThrottleInterval</key>',
    '\t<integer>30</integer>',
    '\t<key>StandardOutPath</key>',
    `\t<string>${xml(log)}</string>`,
    '\t<key>StandardErrorPath</key>',
    `\t<string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** Whether `program` is on PATH. */
function onPath(program: string, env: Env): boolean {
  return (envValue(env, 'PATH') ?? '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, program)));
}

/**
 * Why the service manager will not be asked, or null when it will: absent, or not reachable
 * from here (no systemd user manager: no XDG_RUNTIME_DIR/systemd/private; no GUI session).
 */
export function managerUnreachable(service: WatchService, env: Env): string | null {
  if (service.manager === 'systemd') {
    if (!onPath('systemctl', env)) return 'systemctl is not on PATH';
    const runtime = envValue(env, 'XDG_RUNTIME_DIR');
    if (!runtime || !fs.existsSync(path.join(runtime, 'systemd', 'private')))
      return 'this session has no systemd user manager (XDG_RUNTIME_DIR/systemd/private is not there)';
    return null;
  }
  if (!onPath('launchctl', env)) return 'launchctl is not on PATH';
  return null;
}

export interface ServiceChange {
  manager: WatchService['manager'];
  file: string;
  log: string;
  /** installed, replaced (another was there), removed, absent (nothing to remove). */
  outcome: 'installed' | 'replaced' | 'removed' | 'absent';
  /** The commands run with the service manager, each with how it went. */
  ran: { command: string; ok: boolean; detail: string }[];
  /** Why the service manager was not asked, and what to run instead; null when it was. */
  manual: { reason: string; command: string } | null;
}

const run = promisify(execFile);

async function runAll(commands: readonly string[][], env: Env): Promise<ServiceChange['ran']> {
  const ran: ServiceChange['ran'] = [];
  for (const [program, ...args] of commands) {
    const command = [program, ...args].join(' ');
    try {
      await run(program!, args, { env: env as NodeJS.ProcessEnv, timeout: 20_000 });
      ran.push({ command, ok: true, detail: '' });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim().split('\n')[0];
      ran.push({ command, ok: false, detail: stderr || describeError(error) });
    }
  }
  return ran;
}

function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

export function requireService(env: Env): WatchService {
  const service = watchService(env);
  if (!service)
    throw new Error(
      `no per-user service on ${os.platform()}: run \`bourdon watch\` from your session's startup instead`,
    );
  return service;
}

export async function installService(command: ServiceCommand, env: Env): Promise<ServiceChange> {
  const service = requireService(env);
  const text = service.manager === 'systemd' ? systemdUnit(command, service.log) : launchdPlist(command, service.log);
  const existed = fs.existsSync(service.file);
  fs.mkdirSync(path.dirname(service.file), { recursive: true });
  fs.mkdirSync(path.dirname(service.log), { recursive: true });
  writeFileDurably(service.file, text);
  const reason = managerUnreachable(service, env);
  const commands =
    service.manager === 'systemd'
      ? [
          ['systemctl', '--user', 'daemon-reload'],
          ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT],
          ...(existed ? [['systemctl', '--user', 'restart', SYSTEMD_UNIT]] : []),
        ]
      : [
          ...(existed ? [['launchctl', 'bootout', `gui/${uid()}/${LAUNCHD_LABEL}`]] : []),
          ['launchctl', 'bootstrap', `gui/${uid()}`, service.file],
        ];
  return {
    manager: service.manager,
    file: service.file,
    log: service.log,
    outcome: existed ? 'replaced' : 'installed',
    ran: reason ? [] : await runAll(commands, env),
    manual: reason ? { reason, command: commands.map((words) => words.join(' ')).join(' && ') } : null,
  };
}

export async function uninstallService(env: Env): Promise<ServiceChange> {
  const service = requireService(env);
  const base = { manager: service.manager, file: service.file, log: service.log };
  if (!fs.existsSync(service.file)) return { ...base, outcome: 'absent', ran: [], manual: null };
  const reason = managerUnreachable(service, env);
  const stop =
    service.manager === 'systemd'
      ? [['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT]]
      : [['launchctl', 'bootout', `gui/${uid()}/${LAUNCHD_LABEL}`]];
  const ran = reason ? [] : await runAll(stop, env);
  fs.rmSync(service.file, { force: true });
  if (!reason && service.manager === 'systemd')
    ran.push(...(await runAll([['systemctl', '--user', 'daemon-reload']], env)));
  return {
    ...base,
    outcome: 'removed',
    ran,
    manual: reason ? { reason, command: stop.map((words) => words.join(' ')).join(' && ') } : null,
  };
}
