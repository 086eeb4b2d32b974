/** Machines for the sync tests: each its own config dir, library and machine name, one bare remote. */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, type CliResult } from './cli.js';
import { tempDir } from './fixtures.js';
import { keyOf, manifestDigest, signPublication, type LibraryKey } from '../../src/sync/signing.js';

export interface Machine {
  name: string;
  home: string;
  library: string;
  env: Record<string, string>;
  run(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  writeManifest(id: string, yaml: string): void;
}

export function gitSync(args: string[], cwd?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
}

/** A bare repository for a remote; its HEAD names `main`, so a plain clone checks main out. */
export function bareRemote(): string {
  const dir = path.join(tempDir('bourdon-sync-remote-'), 'team.git');
  gitSync(['init', '-q', '--bare', dir]);
  gitSync(['symbolic-ref', 'HEAD', 'refs/heads/main'], dir);
  return dir;
}

export function makeMachine(name: string): Machine {
  const home = tempDir(`bourdon-sync-home-${name}-`);
  const library = tempDir(`bourdon-sync-lib-${name}-`);
  fs.mkdirSync(path.join(library, 'agents'));
  const env = { BOURDON_HOME: home, BOURDON_LOCAL_NAME: name };
  const machine: Machine = {
    name,
    home,
    library,
    env,
    run: (args, extraEnv = {}) =>
      runCli([...args, '--library', library], { env: { ...env, ...extraEnv }, timeoutMs: 60_000 }),
    json: async <T>(args: string[]) => {
      const result = await machine.run([...args, '--json']);
      if (result.code !== 0)
        throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    writeManifest: (id, yaml) => fs.writeFileSync(path.join(library, 'agents', `${id}.l5.yaml`), yaml),
  };
  return machine;
}

/** A small manifest with one public entity and one session. */
export function simpleManifest(id: string, entity: string, summary = `${entity} summary`): string {
  return `spec_version: "0.1"
agent:
  id: ${id}
  type: code-assistant
last_updated: "2026-11-30T10:00:00Z"
known_entities:
  - name: ${entity}
    type: project
    summary: ${summary}
recent_sessions:
  - date: "2026-11-30"
    cwd: /work/${id}
    project_focus: [${entity}]
    key_actions: [worked on ${entity}]
`;
}

/** Every file under a folder with its bytes, to compare a library before and after. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = fs.readFileSync(full).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/** Every object in a repository, decompressed (commits, trees, blobs; reachable or not), as one text. */
export function allObjects(repo: string): string {
  return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: repo,
    maxBuffer: 512 * 1024 * 1024,
  }).toString('utf8');
}

export function remoteHead(repo: string): string | null {
  try {
    return gitSync(['rev-parse', '--verify', '--quiet', 'refs/heads/main'], repo).trim();
  } catch {
    return null;
  }
}

/** Commits files straight into the remote, as someone with write access and their own git could. */
export function commitToRemote(
  remote: string,
  files: Record<string, string | { link: string }>,
  message: string,
): void {
  const clone = path.join(tempDir('bourdon-sync-rogue-'), 'clone');
  gitSync(['clone', '-q', remote, clone]);
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(clone, name);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    if (typeof content === 'string') fs.writeFileSync(full, content);
    else fs.symlinkSync(content.link, full);
  }
  gitSync(['add', '-A'], clone);
  gitSync(['-c', 'user.name=rogue', '-c', 'user.email=rogue@example.com', 'commit', '-q', '-m', message], clone);
  gitSync(['push', '-q', 'origin', 'HEAD:main'], clone);
}

/**
 * Commits one file at a path git refuses to check out (`.git/config`) on top of the remote's
 * main, with plumbing (no working tree could hold it), as a hostile teammate's git could.
 */
export function commitUncheckoutablePath(remote: string, dir: string, file: string, content: string): void {
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: remote,
    input: content,
    encoding: 'utf8',
  }).trim();
  const mktree = (lines: string) =>
    execFileSync('git', ['mktree'], { cwd: remote, input: lines, encoding: 'utf8' }).trim();
  const inner = mktree(`100644 blob ${blob}\t${file}\n`);
  const root = gitSync(['ls-tree', 'main'], remote) + `040000 tree ${inner}\t${dir}\n`;
  const tree = mktree(root);
  const commit = execFileSync(
    'git',
    [
      '-c',
      'user.name=rogue',
      '-c',
      'user.email=rogue@example.com',
      'commit-tree',
      tree,
      '-p',
      'main',
      '-m',
      'a path git will not check out',
    ],
    { cwd: remote, encoding: 'utf8' },
  ).trim();
  gitSync(['update-ref', 'refs/heads/main', commit], remote);
}

/** A signing key of a library that exists nowhere (a teammate forging, a hand-made publication). */
export function strayKey(): LibraryKey {
  return keyOf(generateKeyPairSync('ed25519').privateKey);
}

/**
 * A `publication.json` for hand-made manifests (`agent id → the file's text`), signed by `key`
 * as a push signs one: what a teammate with their own key can write into the remote.
 */
export function signedPublication(
  machine: string,
  manifests: Record<string, string>,
  key: LibraryKey,
  options: { level?: string; libraryId?: string } = {},
): string {
  const digests: Record<string, string> = {};
  for (const [agent, text] of Object.entries(manifests)) digests[agent] = manifestDigest(Buffer.from(text));
  const fields = {
    machine,
    library_id: options.libraryId ?? randomUUID(),
    access_level: options.level ?? 'public',
    published_at: new Date().toISOString(),
    digests,
  };
  return JSON.stringify({
    format: 'bourdon-sync/1',
    ...fields,
    agents: Object.keys(manifests).sort(),
    public_key: key.publicKey,
    signature: signPublication(fields, key),
  });
}
