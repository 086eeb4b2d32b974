/**
 * The export process the watch keeps warm (export-worker.ts): started with the watch, asked for
 * one export at a time, and let go — its memory back to the system, as a process of its own per
 * export gave before — after an export that left it very large (a fresh one started at once),
 * once no export has been asked of it for IDLE_MS (started again on the next change), or when it
 * ends unasked. While changes come, an export does not wait for a Node start. Where the worker's script
 * is not built (running from sources), null: the caller runs `bourdon <topic> export` instead.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AccessLevel } from '../core/trust/access.js';
import type { Env } from '../core/store/config.js';
import type { ExportTask, ExportTaskAnswer } from './export-worker.js';

/** A worker whose RSS after an export is above this is let go at once and a fresh one started. */
export const RECYCLE_RSS_BYTES = 256 * 1024 * 1024;
/**
 * A worker asked nothing for this long is let go, and started again on the next change: a quiet
 * watch holds only itself (bench/README.md: the watch at rest and the first change after).
 */
export const IDLE_MS = 20_000;

/** The worker's script beside this module: in dist/ as tsc writes it, or in the bundle. */
function workerScript(): string | null {
  for (const relative of ['./export-worker.js', '../export-worker.js']) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (fs.existsSync(file)) return file;
  }
  return null;
}

interface Running {
  child: ChildProcess;
  stderr: string;
  /** Its RSS after its last export; 0 before one. */
  rss: number;
  idle: NodeJS.Timeout | null;
  waiting: Map<number, (answer: Record<string, unknown>) => void>;
}

export class WarmExport {
  private running: Running | null = null;
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly script: string,
    private readonly env: Env,
  ) {}

  /** A warm worker over `env`, started now; null when its script is not there. */
  static start(env: Env): WarmExport | null {
    const script = workerScript();
    if (!script) return null;
    const warm = new WarmExport(script, env);
    warm.spawn();
    return warm;
  }

  private spawn(): Running {
    const child = fork(this.script, [], {
      env: this.env as NodeJS.ProcessEnv,
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const running: Running = { child, stderr: '', rss: 0, idle: null, waiting: new Map() };
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (running.stderr = (running.stderr + chunk.toString('utf8')).slice(-4096)),
    );
    child.on('message', (reply: ExportTaskAnswer) => {
      const resolve = running.waiting.get(reply.id);
      running.waiting.delete(reply.id);
      resolve?.(reply.answer);
      running.rss = reply.rss;
      if (reply.rss > RECYCLE_RSS_BYTES) return this.recycle(running, true);
      // Kept warm while changes come; let go when they stop, so a quiet watch is small.
      if (running.idle) clearTimeout(running.idle);
      running.idle = setTimeout(() => {
        if (running.waiting.size === 0 && this.running === running) this.recycle(running, false);
      }, IDLE_MS);
      running.idle.unref();
    });
    child.on('exit', (code, signal) => {
      const line = running.stderr.split('\n').find((one) => one.trim()) ?? `it ended (${signal ?? `exit ${code}`})`;
      for (const resolve of running.waiting.values()) resolve({ error: `the export process: ${line.trim()}` });
      running.waiting.clear();
      if (this.running === running) this.running = null;
    });
    // A worker that cannot be reached is an export failure, said by the waiting export.
    child.on('error', () => child.kill('SIGKILL'));
    this.running = running;
    return running;
  }

  /** Lets `running` go once its answers are in; with `again`, a fresh worker takes its place now. */
  private recycle(running: Running, again: boolean): void {
    if (running.idle) clearTimeout(running.idle);
    if (this.running === running) this.running = null;
    if (running.waiting.size === 0) running.child.disconnect();
    if (again && !this.closed) this.spawn();
  }

  /** One export: what `bourdon <topic> export --json` prints, or `{ error }`. */
  run(agentId: string, libraryRoot: string, accessLevel: AccessLevel): Promise<Record<string, unknown>> {
    const running = this.running ?? this.spawn();
    const task: ExportTask = { id: this.nextId++, agentId, libraryRoot, accessLevel };
    return new Promise((resolve) => {
      running.waiting.set(task.id, resolve);
      running.child.send(task, (error) => {
        if (!error) return;
        running.waiting.delete(task.id);
        resolve({ error: `the export process: ${error.message}` });
      });
    });
  }

  /** Lets the worker go (after the export in flight: the caller waits for it first). */
  close(): void {
    this.closed = true;
    const running = this.running;
    this.running = null;
    if (running?.idle) clearTimeout(running.idle);
    if (running?.child.connected) running.child.disconnect();
  }
}
