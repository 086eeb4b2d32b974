/**
 * The compile_codex_turn conformance cases (test/fixtures/conformance/turns, README.md there):
 * each materialised as its README says — its home copied into a fresh folder named `home`
 * (`dot-git` renamed `.git`), its library copied beside it, `${HOME}` substituted with the
 * home's real path — ready to run against a server spawned with the case's env and cwd
 * (`turnServer`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { BIN, CONFORMANCE_DIR, tempDir } from './fixtures.js';
import { stdioClient } from './mcp.js';

export const TURNS_DIR = path.join(CONFORMANCE_DIR, 'turns');

interface CaseFile {
  now: string;
  library: string;
  cwd: string;
  env: Record<string, string>;
  args: Record<string, unknown>;
  expect_error: boolean;
  notes: string;
}

export interface TurnCase {
  readonly id: string;
  /** The real path of the copied home. */
  readonly home: string;
  readonly library: string;
  /** The server's working directory. */
  readonly cwd: string;
  /** The server's environment: exactly the case's, with TZ, PATH and SOURCE_DATE_EPOCH for the frozen clock. */
  readonly env: Record<string, string>;
  readonly args: Record<string, unknown>;
  readonly expectError: boolean;
  /** The payload, or `{error: {message, …}}` for a refusal, `${HOME}` substituted. */
  readonly expected: unknown;
  readonly notes: string;
}

export function turnCaseIds(): string[] {
  return fs
    .readdirSync(TURNS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(TURNS_DIR, entry.name, 'case.json')))
    .map((entry) => entry.name)
    .sort();
}

/** Copies a case's home, renaming every `dot-git` entry to `.git`. */
function copyHome(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const target = path.join(to, entry.name === 'dot-git' ? '.git' : entry.name);
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyHome(source, target);
    else {
      fs.copyFileSync(source, target);
      fs.chmodSync(target, 0o644);
    }
  }
}

const substitute = (text: string, home: string): string => text.split('${HOME}').join(home);

export function materialiseTurnCase(id: string): TurnCase {
  const folder = path.join(TURNS_DIR, id);
  const spec = JSON.parse(fs.readFileSync(path.join(folder, 'case.json'), 'utf8')) as CaseFile;
  const root = fs.realpathSync(tempDir('bourdon-turn-'));
  const home = path.join(root, 'home');
  copyHome(path.join(folder, 'home'), home);
  const library = path.join(root, 'library');
  fs.cpSync(path.resolve(folder, spec.library), library, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TZ: 'UTC',
    SOURCE_DATE_EPOCH: String(Date.parse(spec.now) / 1000),
    // The audit trail and config live outside the case's home.
    BOURDON_HOME: path.join(root, 'config'),
  };
  for (const [key, value] of Object.entries(spec.env)) env[key] = substitute(value, home);
  const expectedText = fs.readFileSync(path.join(folder, 'expected.json'), 'utf8');
  return {
    id,
    home,
    library,
    cwd: substitute(spec.cwd, home),
    env,
    args: JSON.parse(substitute(JSON.stringify(spec.args), home)) as Record<string, unknown>,
    expectError: spec.expect_error,
    expected: JSON.parse(substitute(expectedText, home)) as unknown,
    notes: spec.notes,
  };
}

/** `bourdon serve` spawned over the case's library, with its env and cwd, and a real MCP client connected over stdio. */
export interface TurnServer {
  readonly client: Client;
  /** What the server has written to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function turnServer(turn: TurnCase, clientName: string): Promise<TurnServer> {
  const { client, stderr } = await stdioClient(
    { args: [BIN, 'serve', '--library', turn.library], env: turn.env, cwd: turn.cwd },
    { name: clientName },
  );
  return { client, stderr, close: () => client.close() };
}
