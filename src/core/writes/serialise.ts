/**
 * A manifest's bytes as a write stores them: serialised (YAML 1.1-safe) and proved to read back
 * as the same data, so a YAML quirk can never silently change what is stored. Serialising is
 * most of a commit's CPU (about 150 ms of 200 ms for a 315 KB manifest), so a server does it on
 * a worker thread (serialise-worker.ts) while its event loop goes on answering reads; the
 * commit awaits the bytes under the library gate, and everything after — the durable write, its
 * order and its history — is unchanged. One-shot processes serialise in place: starting a
 * worker would cost them more than it saves.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { MAX_MANIFEST_BYTES } from '../store/manifest-file.js';
import type { RawObject } from '../store/manifest.js';
import { parseYaml, stringifyYaml } from '../store/yaml.js';
import { sameValue } from './merge.js';

/** A manifest that must not be written; the message is the commit's error. */
export class SerialiseRefused extends Error {}

/** Serialises a manifest and checks it reads back as written; refuses what the store would refuse to read. */
export function serialiseManifest(manifest: RawObject): Buffer {
  const text = stringifyYaml(manifest);
  const data = Buffer.from(text, 'utf8');
  if (data.length > MAX_MANIFEST_BYTES) {
    throw new SerialiseRefused(`the manifest would be ${data.length} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
  }
  let back: unknown;
  try {
    back = parseYaml(text);
  } catch {
    back = undefined;
  }
  if (!sameValue(back, manifest)) {
    throw new SerialiseRefused(
      'the manifest would not read back as written (unsupported values in the input); nothing was written',
    );
  }
  return data;
}

/** A worker idle this long is stopped (its heap is returned); the next commit starts another. */
const IDLE_MS = 15_000;

let offThread = false;
let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve: (data: Buffer) => void; reject: (error: Error) => void }>();

/** Serialise on a worker thread from now on (a server calls this once at start). */
export function serialiseOffThread(enabled = true): void {
  offThread = enabled;
  if (!enabled) stopWorker();
}

/** The worker's script beside this module: in dist/ as tsc writes it, or in the bundle. */
function workerScript(): string | null {
  for (const relative of ['./serialise-worker.js', '../serialise-worker.js']) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (fs.existsSync(file)) return file;
  }
  return null; // running from sources (tests): serialise in place
}

function stopWorker(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const stopping = worker;
  worker = null;
  void stopping?.terminate();
  for (const [, pending] of waiting) pending.reject(new Error('the serialising worker stopped'));
  waiting.clear();
}

async function startWorker(): Promise<Worker | null> {
  const script = workerScript();
  if (!script) return null;
  const { Worker: WorkerThread } = await import('node:worker_threads');
  const started = new WorkerThread(script);
  started.on('message', (message: { id: number; data?: Uint8Array; refused?: string }) => {
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.refused !== undefined) pending.reject(new SerialiseRefused(message.refused));
    else pending.resolve(Buffer.from(message.data!.buffer, message.data!.byteOffset, message.data!.byteLength));
  });
  const fail = (error: Error) => {
    if (worker === started) worker = null;
    for (const [, pending] of waiting) pending.reject(error);
    waiting.clear();
  };
  started.on('error', fail);
  started.on('exit', () => fail(new Error('the serialising worker exited')));
  // Never keeps a server from exiting; after the listeners, which would ref it again.
  started.unref();
  return started;
}

/**
 * serialiseManifest, on the worker thread when serialiseOffThread() was called. Any failure of
 * the worker itself (it could not start, it died, the manifest could not be sent) falls back to
 * serialising in place: the commit's answer never depends on the thread it ran on.
 */
export async function serialiseManifestAsync(manifest: RawObject): Promise<Buffer> {
  if (!offThread) return serialiseManifest(manifest);
  const id = (nextId += 1);
  try {
    worker ??= await startWorker();
    if (!worker) return serialiseManifest(manifest);
    if (idleTimer) clearTimeout(idleTimer);
    const answer = new Promise<Buffer>((resolve, reject) => waiting.set(id, { resolve, reject }));
    worker.postMessage({ id, manifest });
    return await answer;
  } catch (error) {
    if (error instanceof SerialiseRefused) throw error;
    return serialiseManifest(manifest);
  } finally {
    waiting.delete(id);
    if (worker && waiting.size === 0) {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(stopWorker, IDLE_MS);
      idleTimer.unref();
    }
  }
}
