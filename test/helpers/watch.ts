/**
 * `bourdon watch` driven as a user runs it: the real binary over a temp home, its --json events
 * read as they come, and the files the participants read written by hand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { baseEnv } from './cli.js';
import { BIN, REPO_ROOT } from './fixtures.js';

export interface WatchEventSeen {
  at: string;
  event: string;
  agent?: string;
  message: string;
  [detail: string]: unknown;
}

export interface RunningWatch {
  child: ChildProcess;
  events: WatchEventSeen[];
  stderr(): string;
  /** The first event from index `from` on that `test` accepts (waits up to `ms`). */
  waitFor(test: (event: WatchEventSeen) => boolean, options?: { from?: number; ms?: number }): Promise<WatchEventSeen>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function startWatch(args: string[], env: Record<string, string | undefined>): RunningWatch {
  const child = spawn(process.execPath, [BIN, 'watch', '--json', '--debounce', '150', ...args], {
    cwd: REPO_ROOT,
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: WatchEventSeen[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const listeners = new Set<() => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    events.push(JSON.parse(line) as WatchEventSeen);
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    events,
    stderr: () => stderr,
    exited,
    waitFor(test, { from = 0, ms = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = events.slice(from).find(test);
          if (!found) return false;
          listeners.delete(look);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(look);
          reject(new Error(`no such event within ${ms} ms; events: ${JSON.stringify(events)}; stderr: ${stderr}`));
        }, ms);
        if (!look()) listeners.add(look);
        void exited.then(() => {
          if (listeners.has(look)) {
            listeners.delete(look);
            clearTimeout(timer);
            reject(new Error(`watch exited; events: ${JSON.stringify(events)}; stderr: ${stderr}`));
          }
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** A memory file as Cascade and the Copilot convention keep it: front matter with these entities. */
export function memoryFile(entities: readonly string[], title?: string): string {
  const lines = ['---', ...(title ? [`# ${title}`] : []), 'entities:'];
  for (const name of entities)
    lines.push(
      `  - name: "${name}"`,
      '    type: project',
      `    summary: "about ${name}"`,
      '    last_touched: 2026-04-01',
    );
  lines.push('sessions:', '  - date: 2026-04-01', '    cwd: /home/dev/p', '    key_actions: [worked]', '---', '');
  return lines.join('\n');
}

export function writeFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** Whether the agent's live manifest in `library` names `entity`. */
export function libraryHas(library: string, agent: string, entity: string): boolean {
  try {
    return fs.readFileSync(path.join(library, 'agents', `${agent}.l5.yaml`), 'utf8').includes(entity);
  } catch {
    return false;
  }
}
