// Shared by the bench scripts: flag parsing and starting the real HTTP server.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `--name value` from argv, or the fallback. */
export function flagReader(argv = process.argv.slice(2)) {
  return (name, fallback) => {
    const index = argv.indexOf(name);
    return index >= 0 && argv[index + 1] !== undefined ? argv[index + 1] : fallback;
  };
}

/**
 * Starts `bourdon serve --transport http` on 127.0.0.1 (a free port), with any further serve
 * flags (e.g. `--peers-config`), and resolves once its startup line names the URL:
 * `{ child, url, startup, stderr() }`.
 */
export function startHttpServer(library, env, extraArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'run.js'),
        'serve',
        '--transport',
        'http',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--library',
        library,
        ...extraArgs,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
      if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        const startup = stderr
          .trim()
          .split('\n')
          .find((line) => line.includes('listening on'));
        resolve({ child, url, startup, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}): ${stderr}`));
    });
  });
}
