/**
 * The worker thread a server serialises manifests on (serialise.ts): each message is a manifest;
 * each answer its YAML bytes once they read back as the same data, or the reason they do not.
 */
import { parentPort } from 'node:worker_threads';
import { serialiseManifest } from './serialise.js';

parentPort?.on('message', (message: { id: number; manifest: Record<string, unknown> }) => {
  try {
    const data = serialiseManifest(message.manifest);
    parentPort!.postMessage({ id: message.id, data });
  } catch (error) {
    parentPort!.postMessage({ id: message.id, refused: (error as Error).message });
  }
});
