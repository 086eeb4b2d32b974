/**
 * The import rules of docs/architecture.md, checked on the sources: the domain (src/core) knows
 * nothing of its adapters, and each part of it imports only the parts below it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/fixtures.js';
import { errnoOf, systemErrorOf } from '../src/core/errors.js';

const SRC = path.join(REPO_ROOT, 'src');
const CORE = path.join(SRC, 'core');

/**
 * The parts of src/core, bottom first: each may import only parts before it. `root` is the leaf
 * files at the core root (errors, payload, rows, …), which import no part; `context` is the one
 * root file that names the parts' types (`context.ts`: the store, the caller, the peers).
 */
const ORDER = [
  'root',
  'native',
  'store',
  'fs',
  'trust',
  'context',
  'writes',
  'federation',
  'operations',
  'admin',
] as const;

/** Parts that are a single file at the core root rather than a folder. */
const ROOT_FILE_PARTS: Record<string, string> = { 'context.ts': 'context' };

/** Which parts of src/core each part may import (its own part always). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  root: [],
  native: ['root'],
  store: ['root'],
  fs: ['root', 'store'],
  trust: ['root', 'store', 'fs'],
  context: ['root', 'store', 'fs', 'trust'],
  writes: ['root', 'store', 'fs', 'trust', 'context'],
  federation: ['root', 'store', 'fs', 'trust', 'context', 'writes'],
  operations: ['root', 'native', 'store', 'fs', 'trust', 'context', 'writes', 'federation'],
  admin: ['root', 'native', 'store', 'fs', 'trust', 'context', 'writes', 'federation', 'operations'],
};

/** Packages that belong to the adapters (CLI, MCP, terminal, browser): never imported by the domain. */
const ADAPTER_PACKAGES = /^(@oclif\/|@modelcontextprotocol\/|chalk$|@inquirer\/|playwright)/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The imports of `files` that leave the folders `inside` (relative specifiers) or name an
 * adapter package (others), but for the packages `allowedPackage` matches: `file imports spec`.
 */
function importsOutside(files: readonly string[], inside: readonly string[], allowedPackage?: RegExp): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((spec) =>
        spec.startsWith('.')
          ? !inside.some((dir) => path.resolve(path.dirname(file), spec).startsWith(dir + path.sep))
          : ADAPTER_PACKAGES.test(spec) && !allowedPackage?.test(spec),
      )
      .map((spec) => `${path.relative(REPO_ROOT, file)} imports ${spec}`),
  );
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g)) found.push(match[1]!);
  for (const match of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push(match[1]!);
  // A module imported for its effects alone (`import 'x';`) is an import too.
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+'([^']+)'/g)) found.push(match[1]!);
  return found;
}

function partOf(file: string): string {
  const relative = path.relative(CORE, file).split(path.sep);
  const [top = '', ...below] = relative; // split gives at least one part
  return below.length === 0 ? (ROOT_FILE_PARTS[top] ?? 'root') : top;
}

const coreFiles = sourceFiles(CORE);

/** The names every import statement of a file binds, with whether the statement is type-only. */
function importedNames(file: string): { name: string; typeOnly: boolean }[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: { name: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+(type\s+)?\{([^}]*)\}\s*from\s+'[^']+'/g)) {
    for (const part of match[2]!.split(',')) {
      const [first, second] = part.trim().split(/\s+/);
      if (!first) continue;
      const typeOnly = Boolean(match[1]) || first === 'type';
      found.push({ name: typeOnly && first === 'type' ? second! : first, typeOnly });
    }
  }
  return found;
}

describe('architecture: operations are called through their declarations', () => {
  it('MCP registration, CLI commands and the page import no operation handler: they call the declarations', async () => {
    const { OPERATIONS } = await import('../src/core/operations/catalog.js');
    // The handlers the declarations run, by the names their modules export them under.
    const handlers = new Set([
      'queryAgentMemory',
      'listRecentWork',
      'findEntity',
      'getCrossAgentSummary',
      'prepareRecognitionContext',
      'compileCodexTurn',
      'getDeeperContext',
      'listAgents',
      'exportAgents',
      'commitToFederation',
      'listNotes',
      'listWorkstreams',
      'listMemoryVersions',
      'explainMemoryChange',
      'rollbackAgentMemory',
      'searchMemory',
    ]);
    expect(handlers.size).toBe(OPERATIONS.length);
    const adapterFiles = [
      ...sourceFiles(path.join(SRC, 'commands')),
      ...sourceFiles(path.join(SRC, 'cli')),
      ...sourceFiles(path.join(SRC, 'mcp')),
      ...sourceFiles(path.join(SRC, 'ui')),
    ];
    const violations = adapterFiles.flatMap((file) =>
      importedNames(file)
        .filter(({ name, typeOnly }) => !typeOnly && handlers.has(name))
        .map(({ name }) => `${path.relative(REPO_ROOT, file)} imports ${name}`),
    );
    expect(violations).toEqual([]);
  });
});

const PARTICIPANTS = path.join(SRC, 'participants');
/** The participant kit: the rules participants share (src/participants/kit/README.md). */
const KIT = path.join(PARTICIPANTS, 'kit');
/**
 * The files at src/participants' root: the registry, and what runs an export around a
 * participant (the runner, its finish and secrets). They import the kit and
 * the participant folders; neither imports them.
 */
const PARTICIPANTS_ROOT_FILES = ['finish.ts', 'known-secrets.ts', 'registry.ts', 'runner.ts'];

describe('architecture: participants (src/participants)', () => {
  it('opens with a README saying what it owns and what it may import', () => {
    const text = fs.readFileSync(path.join(PARTICIPANTS, 'README.md'), 'utf8');
    expect(text).toMatch(/^# participants — /);
    expect(text).toContain('May import');
  });

  it('imports only src/core and itself: no command, CLI, MCP, UI or sync code, no adapter package', () => {
    expect(importsOutside(sourceFiles(PARTICIPANTS), [CORE, PARTICIPANTS])).toEqual([]);
  });

  it('the kit imports only src/core and itself: no participant folder, not the runner', () => {
    expect(importsOutside(sourceFiles(KIT), [CORE, KIT])).toEqual([]);
  });

  it('a participant folder imports only src/core, the kit and its own files: no other participant, not the runner', () => {
    const folders = fs
      .readdirSync(PARTICIPANTS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'kit')
      .map((entry) => path.join(PARTICIPANTS, entry.name));
    expect(folders.length).toBeGreaterThanOrEqual(11);
    expect(folders.flatMap((folder) => importsOutside(sourceFiles(folder), [CORE, KIT, folder]))).toEqual([]);
  });

  it('holds at its root only the registry and what runs an export: every shared rule is in the kit', () => {
    const rootFiles = fs.readdirSync(PARTICIPANTS).filter((name) => name.endsWith('.ts'));
    expect(rootFiles.sort()).toEqual(PARTICIPANTS_ROOT_FILES);
    expect(fs.readFileSync(path.join(KIT, 'README.md'), 'utf8')).toMatch(/^# kit — /);
  });

  it('is imported by no part of src/core and not by the MCP server', () => {
    const violations: string[] = [];
    for (const file of [...coreFiles, ...sourceFiles(path.join(SRC, 'mcp'))]) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (target.startsWith(PARTICIPANTS + path.sep))
          violations.push(`${path.relative(REPO_ROOT, file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });
});

describe('architecture: import rules (docs/architecture.md)', () => {
  it('the core root holds at most eight files: the rest live in folders named for what they are', () => {
    const rootFiles = fs.readdirSync(CORE).filter((name) => fs.statSync(path.join(CORE, name)).isFile());
    expect(rootFiles.length, rootFiles.join(', ')).toBeLessThanOrEqual(8);
  });

  it('finds the parts the rules name', () => {
    const parts = new Set(coreFiles.map(partOf));
    expect([...parts].sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });

  it('each part opens with a README (a one-file part with a header) saying what it owns and what it may import', () => {
    for (const part of ORDER.filter((name) => name !== 'root')) {
      const file = Object.entries(ROOT_FILE_PARTS).find(([, name]) => name === part)?.[0];
      const opening = file ? path.join(CORE, file) : path.join(CORE, part, 'README.md');
      expect(fs.existsSync(opening), opening).toBe(true);
      const text = fs.readFileSync(opening, 'utf8');
      if (!file) expect(text, part).toMatch(new RegExp(`^# ${part} — `));
      expect(text, part).toContain('May import');
    }
  });

  it('src/core imports no adapter: no CLI, MCP, terminal or browser code or package', () => {
    expect(importsOutside(coreFiles, [CORE])).toEqual([]);
  });

  it('the parts are a strict order: each may import only parts below it, the root none', () => {
    const upward = Object.entries(MAY_IMPORT).flatMap(([part, allowed]) =>
      allowed
        .filter((other) => ORDER.indexOf(other as never) >= ORDER.indexOf(part as never))
        .map((other) => `${part} → ${other}`),
    );
    expect(upward).toEqual([]);
    expect(Object.keys(MAY_IMPORT)).toEqual([...ORDER]);
  });

  it('docs/architecture.md states the same order', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8').replace(/\s+/g, ' ');
    const stated = ORDER.filter((part) => part !== 'root')
      .map((part) => `\`${part}\``)
      .join(' < ');
    expect(text).toContain(stated);
  });

  it('each part of src/core imports only the parts it may', () => {
    const violations: string[] = [];
    for (const file of coreFiles) {
      const from = partOf(file);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(CORE + path.sep)) continue;
        const to = partOf(target);
        if (to !== from && !MAY_IMPORT[from]?.includes(to))
          violations.push(`${path.relative(REPO_ROOT, file)} (${from}) imports ${spec} (${to})`);
      }
    }
    expect(violations).toEqual([]);
  });
});

/** The source files of src/ a file imports (relative specifiers, type-only imports included). */
function importedFiles(file: string): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'))
    .filter((target) => fs.existsSync(target));
}

/** The import cycles among `files`, each as the files around it (Tarjan's strongly connected components). */
function importCycles(files: readonly string[]): string[][] {
  const edges = new Map(files.map((file) => [file, importedFiles(file)]));
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = component.length === 1 && edges.get(file)!.includes(file);
    if (component.length > 1 || selfImport) cycles.push(component.map((f) => path.relative(REPO_ROOT, f)).sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return cycles;
}

describe('architecture: no import cycles between files (docs/architecture.md)', () => {
  it('finds a cycle when there is one (the check itself)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bourdon-cycles-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { c } from './c.js';\nexport type B = string;\nc();\n");
      fs.writeFileSync(path.join(dir, 'c.ts'), "import type { A } from './a.js';\nexport function c(): A | void {}\n");
      fs.writeFileSync(path.join(dir, 'd.ts'), "import { c } from './c.js';\nc();\n");
      const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'].map((name) => path.join(dir, name));
      expect(importCycles(files).map((cycle) => cycle.map((file) => path.basename(file)))).toEqual([
        ['a.ts', 'b.ts', 'c.ts'],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no file of src/ imports itself back through others, type-only imports included', () => {
    expect(importCycles(sourceFiles(SRC))).toEqual([]);
  });
});

describe('architecture: sync (src/sync)', () => {
  const SYNC = path.join(SRC, 'sync');

  it('has a README saying what it owns and what it may import', () => {
    const text = fs.readFileSync(path.join(SYNC, 'README.md'), 'utf8');
    expect(text).toMatch(/^# sync — /);
    expect(text).toContain('May import');
  });

  it('imports only src/core and no adapter: no command, CLI, MCP, UI or participant code or package', () => {
    expect(importsOutside(sourceFiles(SYNC), [SYNC, CORE])).toEqual([]);
  });

  it('nothing in src/core imports sync', () => {
    const violations = coreFiles.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(SYNC + path.sep))
        .map((spec) => `${path.relative(REPO_ROOT, file)} imports ${spec}`),
    );
    expect(violations).toEqual([]);
  });
});

describe('architecture: watch (src/watch)', () => {
  const WATCH = path.join(SRC, 'watch');

  it('has a README saying what it owns and what it may import', () => {
    const text = fs.readFileSync(path.join(WATCH, 'README.md'), 'utf8');
    expect(text).toMatch(/^# watch — /);
    expect(text).toContain('May import');
  });

  it('imports only src/core, src/participants and src/sync: no command, CLI, MCP or UI code, no adapter package', () => {
    expect(importsOutside(sourceFiles(WATCH), [WATCH, CORE, PARTICIPANTS, path.join(SRC, 'sync')])).toEqual([]);
  });

  it('sits below the commands: nothing but src/commands imports it', () => {
    const others = ['core', 'participants', 'sync', 'cli', 'hooks', 'mcp', 'ui'].flatMap((folder) =>
      sourceFiles(path.join(SRC, folder)),
    );
    const violations = others.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(WATCH + path.sep))
        .map((spec) => `${path.relative(REPO_ROOT, file)} imports ${spec}`),
    );
    expect(violations).toEqual([]);
  });
});

/**
 * The adapters around core, by folder. `src/commands` is not among them: its files are the
 * binary's entry points, one per command, and some start another adapter (`serve` the MCP
 * server, `ui` the page, `peers check` the MCP client).
 */
const ADAPTERS: Record<string, readonly string[]> = {
  cli: ['cli', 'hooks'],
  mcp: ['mcp'],
  ui: ['ui'],
};

function adapterOf(file: string): string | null {
  const top = path.relative(SRC, file).split(path.sep)[0]!;
  return Object.entries(ADAPTERS).find(([, folders]) => folders.includes(top))?.[0] ?? null;
}

describe('architecture: adapters', () => {
  it('no adapter imports another adapter, nor a command: what two share lives in core', () => {
    const violations: string[] = [];
    for (const folder of Object.values(ADAPTERS).flat()) {
      for (const file of sourceFiles(path.join(SRC, folder))) {
        const from = adapterOf(file);
        for (const spec of importsOf(file)) {
          if (!spec.startsWith('.')) continue;
          const target = path.resolve(path.dirname(file), spec);
          const to = adapterOf(target);
          const toCommand = target.startsWith(path.join(SRC, 'commands') + path.sep);
          if ((to !== null && to !== from) || toCommand)
            violations.push(`${path.relative(REPO_ROOT, file)} (${from}) imports ${spec}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('the page imports no CLI or MCP package', () => {
    const violations = sourceFiles(path.join(SRC, 'ui')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /^(@oclif\/|@modelcontextprotocol\/|@inquirer\/)/.test(spec))
        .map((spec) => `${path.relative(REPO_ROOT, file)} imports ${spec}`),
    );
    expect(violations).toEqual([]);
  });
});

const MCP = path.join(SRC, 'mcp');
/** The longest file src/mcp holds: past it, a file holds more than one part (issue 42, 43). */
const MCP_MAX_LINES = 250;

describe('architecture: the MCP adapter (src/mcp)', () => {
  it('has a README saying what it owns and what it may import, naming each of its folders', () => {
    const text = fs.readFileSync(path.join(MCP, 'README.md'), 'utf8');
    expect(text).toMatch(/^# mcp — /);
    expect(text).toContain('May import');
    const folders = fs
      .readdirSync(MCP, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `\`${entry.name}/\``);
    expect(folders.filter((folder) => !text.includes(folder))).toEqual([]);
  });

  it('imports only src/core, itself and the MCP SDK', () => {
    expect(importsOutside(sourceFiles(MCP), [CORE, MCP], /^@modelcontextprotocol\//)).toEqual([]);
  });

  it(`holds no file over ${MCP_MAX_LINES} lines`, () => {
    expect(longerThan(sourceFiles(MCP), MCP_MAX_LINES)).toEqual([]);
  });
});

/** The longest file anywhere in src: past it, a file holds more than one part (the review's mark). */
const SRC_MAX_LINES = 450;

/** The files of `files` longer than `max` lines, with their lengths. */
function longerThan(files: string[], max: number): { file: string; lines: number }[] {
  return files
    .map((file) => ({
      file: path.relative(REPO_ROOT, file),
      lines: fs.readFileSync(file, 'utf8').split('\n').length - 1,
    }))
    .filter(({ lines }) => lines > max);
}

describe('architecture: file size', () => {
  it(`holds no source file over ${SRC_MAX_LINES} lines`, () => {
    expect(longerThan(sourceFiles(SRC), SRC_MAX_LINES)).toEqual([]);
  });
});

describe('architecture: system errors', () => {
  it('no file casts a caught error to NodeJS.ErrnoException: errnoOf / systemErrorOf (core/errors.ts) read its fields', () => {
    const casts = sourceFiles(SRC).filter((file) => /as NodeJS\.ErrnoException/.test(fs.readFileSync(file, 'utf8')));
    expect(casts.map((file) => path.relative(REPO_ROOT, file))).toEqual([]);
  });

  it('errnoOf reads the code of a real file error, and nothing from values that carry none', () => {
    let caught: unknown;
    try {
      fs.readFileSync(path.join(REPO_ROOT, 'no-such-file-here'));
    } catch (error) {
      caught = error;
    }
    expect(errnoOf(caught)).toBe('ENOENT');
    expect(systemErrorOf(caught)).toMatchObject({ code: 'ENOENT', syscall: 'open', errno: expect.any(Number) });
    for (const value of [null, undefined, 'ENOENT', 42, new Error('plain'), { code: 7 }])
      expect(errnoOf(value)).toBeUndefined();
  });
});

describe('architecture: the export write is one call into core (core/writes/export-write.ts)', () => {
  /** What only the export write in core drives: the gate, the audit log, history, the merge, staging. */
  const WRITE_MACHINERY =
    /core\/(fs\/gate|trust\/audit|writes\/(history|history-writer|merge|staged-file|export-rows|export-stage))\.js$/;

  it('no participant drives the write machinery itself: it hands the finished manifest to writeExport', () => {
    const violations = sourceFiles(PARTICIPANTS).flatMap((file) =>
      importsOf(file)
        .filter((spec) => WRITE_MACHINERY.test(spec))
        .map((spec) => `${path.relative(REPO_ROOT, file)} imports ${spec}`),
    );
    expect(violations).toEqual([]);
    const callers = sourceFiles(PARTICIPANTS).filter((file) =>
      importsOf(file).some((spec) => spec.endsWith('core/writes/export-write.js')),
    );
    expect(callers.map((file) => path.relative(PARTICIPANTS, file))).toEqual(['runner.ts']);
  });
});

describe('architecture: the Codex turn compiler (core/operations/codex-turn)', () => {
  const TURN = path.join(CORE, 'operations', 'codex-turn');

  it('lives in its own folder, which opens with a README naming each of its files', () => {
    const text = fs.readFileSync(path.join(TURN, 'README.md'), 'utf8');
    expect(text).toMatch(/^# codex-turn — /);
    expect(text).toContain('May import');
    for (const file of sourceFiles(TURN)) expect(text, file).toContain(`\`${path.basename(file)}\``);
    const loose = fs.readdirSync(path.join(CORE, 'operations')).filter((name) => /^(turn-|codex-turn\.)/.test(name));
    expect(loose).toEqual([]);
  });

  it('the rest of src imports only its entry, compile.ts', () => {
    const entry = path.join(TURN, 'compile.ts');
    const violations = sourceFiles(SRC)
      .filter((file) => !file.startsWith(TURN + path.sep))
      .flatMap((file) =>
        importedFiles(file)
          .filter((target) => target.startsWith(TURN + path.sep) && target !== entry)
          .map((target) => `${path.relative(REPO_ROOT, file)} imports ${path.relative(REPO_ROOT, target)}`),
      );
    expect(violations).toEqual([]);
  });
});
