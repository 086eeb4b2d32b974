/**
 * What every participant (an exporter of one agent's native memory) provides, and what it is
 * given. A participant only reads its agent's files and returns a manifest; filtering at an
 * access level, redaction and writing into the library are the export runner's job, once for all.
 */
import type { Manifest } from './manifest-shape.js';
import type { Since } from './since.js';

/** Where and when an export runs: everything a participant may read from its surroundings. */
export interface ExportEnvironment {
  /** The user's home directory (HOME). */
  readonly home: string;
  /** The environment variables a participant may consult (CLAUDE_BRAIN, CODEX_HOME, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working directory (some sources fall back to it). */
  readonly cwd: string;
  /** The clock: SOURCE_DATE_EPOCH when set, else the real time. */
  readonly now: Date;
  /** This machine's name: BOURDON_LOCAL_NAME when set, else the OS hostname. */
  readonly hostname: string;
  /**
   * `--since` (a relative form already the day it names), or undefined for no bound: one value,
   * whose named rules (`keepDay`, `keepInstant`, …: since.ts) each participant cuts its rows with.
   */
  readonly since?: Since;
  /** The platform whose default paths apply (process.platform). */
  readonly platform: NodeJS.Platform;
}

/** One native source a participant looks for, as doctor and `--json` report it. */
export interface SourceStatus {
  /** The engine's capability name for it (`auto_memory`, `state_db`, …). */
  readonly name: string;
  readonly path: string;
  readonly found: boolean;
  /** Last modified, ISO 8601, when found. */
  readonly modified?: string;
  /** Why a found source could not be read (one line), when it could not. */
  readonly problem?: string;
}

/** A manifest as plain data, as the runner filters and writes it (a participant returns a `Manifest`). */
export type ManifestData = Record<string, unknown>;

export interface ParticipantExport {
  /** undefined when the participant found nothing to export (no manifest is written). */
  readonly manifest: Manifest | undefined;
  readonly sources: readonly SourceStatus[];
  /** One-line reasons for sources skipped or partly read; the export still succeeds. */
  readonly warnings: readonly string[];
}

/**
 * A command-line flag that stands for one of a participant's environment variables (`--file`
 * for MEMORY_FILE_PATH, `--url` for OPENCLAW_URL): the CLI sets the variable from it, so the
 * participant has one code path and the same checks for both.
 */
export interface VariableFlag {
  /** The flag's name, without dashes. */
  readonly name: string;
  /** The variable the flag stands for. */
  readonly env: string;
  readonly description: string;
  /** What the help shows as its value (`<file>`, `<url>`, `<seconds>`). */
  readonly helpValue: string;
  /** A file that must exist: resolved against the working folder, refused in one line when missing. */
  readonly isFile?: boolean;
  /** A switch without a value (`--insecure`): given, it sets its variable to `1`. */
  readonly switch?: boolean;
}

/** How `bourdon <topic> export` presents a participant: text only, the CLI builds the command. */
export interface ParticipantHelp {
  /** One line: what the export publishes. */
  readonly summary: string;
  /** What it reads (read-only) and where: sources, environment overrides, fallbacks. */
  readonly reads: string;
  /** What the export does with the manifest, when not the usual new version in the library. */
  readonly writes?: string;
  readonly flags?: readonly VariableFlag[];
  /** Its examples, when the three every export has would not show how it is used. */
  readonly examples?: readonly string[];
  /**
   * Where it looked, said when no source was found and no path stands for it (mcp-memory, whose
   * file only a variable, a host's config or the server's install names).
   */
  readonly lookedFor?: string;
}

/**
 * What `bourdon watch` follows to know when this participant's export may have changed
 * (src/watch, docs/participants.md), declared beside what it reads:
 * - `sources`: the paths `sources()` names, found or not (a file, or a folder and everything
 *   under it; a path that is not there yet is followed until it appears), less the capabilities
 *   named in `except` (a folder that holds far more than is read, whose parts are named too).
 *   `files`, when given, is the files under a followed folder that count (tested on the whole
 *   path): a change to any other file there exports nothing. A file source is followed with its
 *   SQLite journals (`-wal`, `-journal`) beside it.
 * - `poll`: nothing on this machine to follow (a server): asked again at an interval.
 */
export type WatchPlan =
  | { readonly follow: 'sources'; readonly except?: readonly string[]; readonly files?: RegExp }
  | { readonly follow: 'poll' };

export interface Participant {
  /** The agent id it publishes as (`claude-code`). */
  readonly agentId: string;
  /** The CLI topic: its command is `bourdon <topic> export`. */
  readonly topic: string;
  readonly help: ParticipantHelp;
  /**
   * True when its export is staged for review rather than written live, as the engine stages a
   * quarantined member's (openclaw): without `--out` the manifest goes to
   * `<library>/staging/<agent-id>/<agent-id>.l5.yaml`, where `bourdon staging list/promote` finds it.
   */
  readonly staged?: boolean;
  /** What `bourdon watch` follows to export it again when it changes. */
  readonly watch: WatchPlan;
  /** The sources it would read, found or not, without reading them. */
  sources(environment: ExportEnvironment): Promise<readonly SourceStatus[]>;
  /** Reads the native files and builds the manifest. Never writes anything. */
  export(environment: ExportEnvironment): Promise<ParticipantExport>;
  /**
   * Secrets the export is given (openclaw's token): the runner removes each, wherever a source
   * echoed it, from everything it writes or prints — the manifest, the warnings, a failure's
   * message and its audit line.
   */
  secrets?(environment: ExportEnvironment): readonly string[];
}
