/**
 * The base of every `bourdon` command: `--json`, `--library` and one error policy.
 * `--json` is oclif's own (JsonCommand): `run()` returns the command's payload, typed as its
 * operation's answer, which oclif prints under --json; without it the command prints its human
 * output itself (`emit`). Errors are one line on stderr (or `{"error": …, "code": …}` on stdout
 * under --json), never a stack trace; the exit status is the code's (core/errors.ts FAILURES,
 * docs/errors.md: 2 usage, 3 access denied, 4 not found, 5 not visible, …).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Errors, Flags } from '@oclif/core';
import { BourdonError, codeOf, describeError, exitCodeOf, FAILURES, type ErrorCode } from '../core/errors.js';
import { failureCode, type Failure } from '../core/payload.js';
import { appendAudit, auditRecord, type AuditDecision } from '../core/trust/audit.js';
import { OPERATOR } from '../core/trust/caller.js';
import { configPaths } from '../core/store/config.js';
import type { OperationContext } from '../core/context.js';
import { AGENT_TYPES } from '../core/store/manifest.js';
import { isValidAgentId } from '../core/store/ids.js';
import { MANIFEST_SUFFIX, libraryPaths, type LibraryStore } from '../core/store/library.js';
import type { LibraryView } from '../core/store/partial-store.js';
import { ACCESS_LEVELS, envDefaultLevel, type AccessLevel } from '../core/trust/access.js';
import { writePaged } from './pager.js';
import { humanText, plural, setupColors, setupWidth, type HumanOutput } from './output.js';
import { editDistance } from './suggest.js';
import { jsonText, libraryRoot, openLibrary, type OpenLibrary } from './read-commands.js';
import { JsonCommand } from './json-command.js';
import { cliWarn, displayWidth, stderrLine, stderrWidth, truncate } from './width.js';

/** Libraries with at least this many files in agents/ load behind a progress line. */
const LARGE_LIBRARY_FILES = 500;

/**
 * Spinners and progress lines: only when a person watches (stdout and stderr both terminals,
 * not TERM=dumb) and never under --json.
 */
function progressWanted(jsonMode: boolean): boolean {
  return !jsonMode && Boolean(process.stderr.isTTY) && Boolean(process.stdout.isTTY) && process.env.TERM !== 'dumb';
}

/**
 * The base flags of a command that works on no library (members, peers and the audit trail
 * live in $BOURDON_HOME; the demo makes its own copy): there a --library is refused as an
 * unknown flag (exit 2) instead of being accepted and ignored; --json is still oclif's
 * (`enableJsonFlag`). (A module constant, not a static: oclif copies every static of a command
 * into its manifest.)
 */
export const NO_LIBRARY_FLAGS = {};

const LIBRARY_FLAG = {
  library: Flags.string({
    description: 'Agent library root (default: $BOURDON_LIBRARY, else ~/agent-library).',
    helpValue: '<dir>',
  }),
};

export abstract class BaseCommand extends JsonCommand {
  // Typed with --library optional so that a command may leave it out (NO_LIBRARY_FLAGS).
  static override baseFlags: Partial<typeof LIBRARY_FLAG> = LIBRARY_FLAG;

  /** The write this command audits, once it said so (auditAs); cleared when its line is written. */
  private audited: { op: string; namespace: string } | null = null;

  /**
   * Warnings on stderr, each message once per command: a command may open the library more
   * than once (the empty-answer hint asks again at a higher level), and one unreadable manifest
   * or a folder without agents/ is worth one line, not one per read.
   */
  private readonly warnOnce = (() => {
    const said = new Set<string>();
    return (message: string) => {
      if (said.has(message)) return;
      said.add(message);
      cliWarn(message);
    };
  })();

  public override async init(): Promise<void> {
    await super.init();
    setupWidth(flagGiven(this.argv, '--wide'));
    if (!this.jsonEnabled()) await setupColors();
  }

  /** The library root: --library wins over BOURDON_LIBRARY; an empty variable counts as unset. */
  protected libraryRoot(flag: string | undefined): string {
    return libraryRoot(flag);
  }

  /**
   * Opens the library for reading; a missing library is a clear error (exit 1). A command that
   * reads only part of each agent names it (a LibraryView), and reads just the parsed cache's
   * small per-agent parts.
   */
  protected openContext(
    libraryFlag: string | undefined,
    overrides: Partial<OperationContext> = {},
    view?: LibraryView,
  ): OperationContext {
    const ctx = openLibrary(libraryFlag, this.warnOnce, view, overrides);
    this.preloadLargeLibrary(ctx.store);
    return ctx;
  }

  /**
   * The library an export writes into (a participant's export, export-all, init's first
   * export); created (agents/) when it does not exist yet, with a line saying so. An export
   * needs only which file serves each agent id (core/writes/export-write.ts), so the library is
   * opened as its ids-only view: no other agent's rows are read.
   */
  protected libraryForExport(flag: string | undefined): OperationContext {
    const root = this.libraryRoot(flag);
    const paths = libraryPaths(root);
    if (!fs.existsSync(paths.agents)) {
      fs.mkdirSync(paths.agents, { recursive: true });
      process.stderr.write(stderrLine(`bourdon: created the library ${paths.root}`));
    }
    return this.openContext(flag, { config: configPaths(process.env) }, 'ids');
  }

  /** openContext as the shared read-command payloads (read-commands.ts) take it. */
  protected get open(): OpenLibrary {
    return (libraryFlag, view) => this.openContext(libraryFlag, {}, view);
  }

  /**
   * A write that would create a manifest needs its agent type. The tool answers
   * "agent_type is required …", naming its argument; on the command line the flag is named
   * instead, before anything is written. An invalid id is left to the operation, which refuses it
   * before any path is built from it.
   */
  protected assertAgentTypeForNew(
    ctx: OperationContext,
    agentId: string,
    agentType: string | null | undefined,
    mode = 'merge',
  ): void {
    if (agentType || !isValidAgentId(agentId)) return;
    const types = `give --agent-type (${AGENT_TYPES.join(', ')})`;
    // replace writes the manifest afresh, so it takes no type from the file it replaces.
    if (mode === 'replace') throw new BourdonError(`--mode replace writes a new manifest: ${types}`, 'invalid_input');
    if (fs.existsSync(path.join(ctx.store.paths.agents, `${agentId}${MANIFEST_SUFFIX}`))) return;
    throw new BourdonError(`${agentId} has no manifest yet: ${types} to create it`, 'invalid_input');
  }

  /**
   * A library with many manifests can take a while to load the first time (before the parsed
   * cache is warm): load it now, behind a progress line, instead of inside the operation.
   */
  private preloadLargeLibrary(store: LibraryStore): void {
    if (!progressWanted(this.jsonEnabled())) return;
    let count: number;
    try {
      count = fs.readdirSync(store.paths.agents).length;
    } catch {
      return;
    }
    if (count < LARGE_LIBRARY_FILES) return;
    const stop = this.startProgress(`loading ${count} manifests…`);
    try {
      store.snapshot();
    } finally {
      stop();
    }
  }

  /**
   * A command's answer: returned for `run()` to return, which oclif prints under --json
   * (`logJson`); else the command's human rendering is printed here.
   */
  protected emit<T>(payload: T, human: () => HumanOutput): T {
    if (!this.jsonEnabled()) this.say(human());
    return payload;
  }

  /**
   * Ends a command whose answer is shown but whose status is not success (doctor found a
   * problem, a peer did not answer): `run()` never returns, so under --json the answer is printed
   * here, as oclif prints a returned one; then exit `code`.
   */
  protected exitAfter(payload: object, code: number): never {
    if (this.jsonEnabled()) this.logJson(payload);
    this.exit(code);
  }

  /**
   * Prints human output on stdout. Every human output passes here (or through emit): control
   * characters in data are shown escaped, and every line is fitted to the width (humanText).
   */
  protected say(human: HumanOutput): void {
    const text = humanText(human);
    // A text taller than the terminal goes through the pager (pager.ts); never under --json.
    if (text) writePaged(text.endsWith('\n') ? text : text + '\n');
  }

  /**
   * A progress line on stderr for work that can take over a second; only on a TTY and never
   * under --json. Returns the function that clears it.
   */
  protected startProgress(message: string): () => void {
    if (!progressWanted(this.jsonEnabled())) return () => {};
    const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let frame = 0;
    // The first frame at once: synchronous work (a large parse) shows it before blocking.
    // Cut to the line: a progress line the terminal wraps could not be redrawn or erased.
    const width = stderrWidth();
    const shown = width === null ? message : truncate(message, width - 3);
    const draw = () => process.stderr.write(`\r${frames[frame++ % frames.length]} ${shown}`);
    draw();
    const timer = setInterval(draw, 80);
    timer.unref();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      // Blank the line with spaces rather than an erase sequence: no escape codes ever.
      process.stderr.write(`\r${' '.repeat(displayWidth(shown) + 2)}\r`);
    };
  }

  /**
   * Whenever the level asked for held rows back, a line saying how many more the same question
   * has at the first higher level that has more ("9 more sessions at team: --access-level team"),
   * empty answer or not: exports write team rows while reads default to public, and a table of
   * the public ones alone said nothing of the rest. `count` answers the whole question (every
   * page) at a level. The CLI reads as the operator, who may read every level locally, so the
   * line names only rows this reader could see with the flag. '' when nothing was held back, and
   * always under --json (the payload stays the tool's).
   */
  protected async heldBackHint(
    flags: { 'access-level'?: string; 'include-private'?: boolean },
    toolDefault: AccessLevel,
    noun: readonly [one: string, many: string],
    count: (level: AccessLevel) => Promise<number>,
  ): Promise<string> {
    if (this.jsonEnabled() || flags['include-private']) return '';
    const asked = (flags['access-level'] ?? envDefaultLevel(process.env) ?? toolDefault).trim().toLowerCase();
    const start = ACCESS_LEVELS.findIndex((level) => level === asked);
    if (start < 0 || start === ACCESS_LEVELS.length - 1) return '';
    const shown = await count(ACCESS_LEVELS[start]!);
    for (const level of ACCESS_LEVELS.slice(start + 1)) {
      const more = (await count(level)) - shown;
      if (more > 0) return `${plural(more, `more ${noun[0]}`, `more ${noun[1]}`)} at ${level}: --access-level ${level}`;
    }
    return '';
  }

  /**
   * Marks this command as a write the audit log records (op and namespace as the MCP tool's
   * line would name them): it leaves one line with its outcome — `allow` when it succeeds
   * (auditDone, or at the end), `deny` or `fail` with the reason when it is refused or fails.
   */
  protected auditAs(op: string, namespace: string): void {
    this.audited = { op, namespace };
  }

  /** The audited write succeeded: its line, with what it did. */
  protected auditDone(detail?: string): void {
    this.writeAudit('allow', detail);
  }

  private writeAudit(decision: AuditDecision, detail?: string): void {
    const pending = this.audited;
    if (!pending) return;
    this.audited = null;
    try {
      appendAudit(
        configPaths(process.env).audit,
        auditRecord(OPERATOR.agent_id, pending.op, pending.namespace, decision, detail),
      );
    } catch (error) {
      // A failed command's one line already says what went wrong (a full or read-only disk
      // fails both); a write that happened without its audit line is worth a warning.
      if (decision === 'allow') this.warnOnce(`audit log not written (${describeError(error)})`);
    }
  }

  /**
   * An answer that carries `error` is a failed request: print it (under --json exactly the
   * tool's payload), then exit with its code's status (payload.ts failureCode).
   */
  protected failOnPayloadError(payload: Failure): never {
    const code = failureCode(payload);
    this.writeAudit(FAILURES[code].audit, auditDetail(code, payload.error));
    if (this.jsonEnabled()) process.stdout.write(jsonText(payload));
    else process.stderr.write(`${errorLine(payload.error)}\n`);
    this.exit(exitCodeOf(code));
  }

  /**
   * "; did you mean --since?" for a mistyped flag, as a mistyped command gets its suggestion:
   * from oclif's NonExistentFlagsError (not exported), the parse error whose `flags` lists the
   * words typed.
   */
  private flagSuggestion(err: Error & { flags?: unknown }): string {
    const flags = Array.isArray(err.flags) ? err.flags : [];
    const typed = typeof flags[0] === 'string' ? flags[0].split('=')[0] : undefined;
    if (!typed) return '';
    const ctor = this.constructor as typeof BaseCommand;
    const json = ctor.enableJsonFlag ? ['json'] : [];
    const names = [...json, ...Object.keys({ ...ctor.baseFlags, ...ctor.flags })].map((name) => `--${name}`);
    const close = closestFlag(typed, names);
    return close ? `; did you mean ${close}?` : '';
  }

  /** An audited write that ended without error and without auditDone still leaves its line. */
  protected override async finally(err: Error | undefined): Promise<void> {
    if (!err) this.writeAudit('allow');
    await super.finally(err);
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<void> {
    // oclif's own exit() signal: let it through untouched.
    if (err instanceof Errors.ExitError) throw err;
    const code = cliErrorCode(err);
    // Whether the parser threw or wrapped it: a usage CLIError, or any other error oclif marked
    // (ours carry no `oclif` of their own).
    const fromParser = err instanceof Errors.CLIError ? code === 'usage' : err.oclif !== undefined;
    // The parser's messages span lines ("Parsing --limit \n\tExpected…"): one line, all of it.
    let message = fromParser ? parseErrorLine(err) : describeError(err, { withPath: true });
    if (fromParser) message += this.flagSuggestion(err);
    this.writeAudit(FAILURES[code].audit, auditDetail(code, message));
    if (process.env.BOURDON_DEBUG) process.stderr.write(`${err.stack ?? message}\n`);
    // The one --json error shape: the line stderr would show, and the code a script branches on.
    if (this.jsonEnabled()) process.stdout.write(jsonText({ error: message, code }));
    else {
      // A usage error names the help that shows the usage; a bug says how to see where it is.
      const help =
        code === 'usage'
          ? ` (see \`bourdon ${this.id?.replace(/:/g, ' ') ?? ''} --help\`)`
          : code === 'internal' && !process.env.BOURDON_DEBUG
            ? ' (a bug in bourdon: BOURDON_DEBUG=1 shows where; please report it)'
            : '';
      process.stderr.write(`${errorLine(message + help)}\n`);
    }
    this.exit(this.exitStatusOf(code));
  }

  /** The exit status a failure with `code` ends this command with: the code's (docs/errors.md). */
  protected exitStatusOf(code: ErrorCode): number {
    return exitCodeOf(code);
  }
}

export { cliWarn };

/**
 * The code of an error that ends a command: ours carry theirs. A CLIError is oclif's own, and
 * no command raises one (they throw BourdonErrors): its parser's (a CLIParseError, or a plain
 * CLIError such as "Flag --library expects a value") are usage errors, and so is a flag's own
 * parser failing, whatever it threw, which oclif marks with `oclif.exit` =
 * exitCodes.failedFlagParsing (2, package.json).
 */
function cliErrorCode(err: Error & { oclif?: { exit?: number } }): ErrorCode {
  if (err instanceof Errors.CLIError) return 'usage';
  if (err.oclif?.exit === FAILURES.usage.exit) return 'usage';
  return codeOf(err);
}

/** An audit line's detail for a failure: its code first, so the trail is read without parsing words. */
function auditDetail(code: ErrorCode, message: string): string {
  return `${code}: ${message}`;
}

/** An error as stderr shows it: one line, wrapped at the terminal's width when it is one. */
function errorLine(message: string): string {
  return stderrLine(`bourdon: ${message}`).slice(0, -1);
}

/** The flag closest to a mistyped one: at most 1 edit for short names, 2 for longer, or a prefix. */
function closestFlag(typed: string, names: readonly string[]): string | null {
  const word = typed.replace(/^-+/, '').toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of names) {
    const bare = name.slice(2);
    let distance = editDistance(word, bare);
    if (word.length >= 3 && bare.startsWith(word)) distance = Math.min(distance, 1);
    if (distance > (word.length <= 4 ? 1 : 2)) continue;
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best?.name ?? null;
}

/** Whether a flag is on the command line before any `--` (after it every word is an argument). */
function flagGiven(argv: readonly string[], flag: string): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes(flag);
}

/** oclif parse errors span lines ("Parsing --limit \n\tExpected an integer…"): one line, all of it. */
function parseErrorLine(err: Error & { args?: unknown }): string {
  const lines = err.message
    // eslint-disable-next-line no-control-regex -- oclif colours part of its messages
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim().replace(/\s{2,}/g, ' '))
    .filter((line) => line && !/^See more help with/.test(line));
  // A missing argument: oclif's RequiredArgsError (not exported) is the parse error whose `args`
  // lists argument definitions (an unexpected argument's lists the words given).
  const missing =
    Array.isArray(err.args) && err.args.length > 0 && err.args.every((arg) => typeof arg === 'object' && arg !== null);
  if (missing) {
    const args = err.args as { name?: string; description?: string }[];
    const named = args.map(
      (arg) => `<${arg.name ?? '?'}>${arg.description ? ` (${arg.description.replace(/\.$/, '')})` : ''}`,
    );
    return `missing required argument${args.length === 1 ? '' : 's'}: ${named.join(', ')}`;
  }
  const [first = err.message, ...rest] = lines;
  return rest.length ? `${first.replace(/:$/, '')}: ${rest.join('; ')}` : first;
}
