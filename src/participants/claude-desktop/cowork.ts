/**
 * The claude-desktop-cowork participant: the Claude desktop app's Co-Work (local-agent mode)
 * runs (`<desktop dir>/local-agent-mode-sessions`), metadata only (conformance/participants/
 * README.md, "claude_desktop_cowork"). Beside each run's state it reads the run's audit
 * transcript for a few scalars — tool and skill counts, turns, cost, whether it ended in error —
 * and never a message, prompt or result text. The rest is surface.ts.
 */
import type { SourceReader } from '../kit/source-reader.js';
import {
  ACTION_LIMITS,
  desktopSurfaceParticipant,
  labelled,
  largest,
  mcpAction,
  titleAction,
  type State,
} from './surface.js';
import { specialKind } from '../../core/native/confined-reads.js';

/** Lines of an audit transcript looked at, as the engine reads at most. */
export const MAX_AUDIT_LINES = 50_000;

/** What a run's audit transcript says about it. */
interface RunScalars {
  /** `num_turns` as Python prints an int (a boolean counts: `True`); undefined when not an int. */
  turns?: string;
  /** `total_cost_usd` when a number (a boolean counts as 0 or 1). */
  cost?: number;
  /** `is_error`, when it is a boolean. */
  error?: boolean;
  /** The lengths of the last init record's `tools` and `skills` lists; 0 without them. */
  tools: number;
  skills: number;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The scalars of the run whose state is `stateFile`, from `<state path without .json>/audit.jsonl`. */
function readAudit(reader: SourceReader, stateFile: string): RunScalars {
  const file = `${stateFile.slice(0, -'.json'.length)}/audit.jsonl`;
  const counts = { tools: 0, skills: 0 };
  const result: Record<string, unknown> = {};
  const info = reader.stat(file);
  // A FIFO, a device or a socket the reader named already (one warning for one cause).
  if (info && !info.isFile() && !specialKind(info)) reader.warn(`${file}: skipped, not a regular file`);
  if (info?.isFile()) {
    // The audit transcript's lines: split at \n, \r\n and a lone \r, at most MAX_AUDIT_LINES of them, stripped.
    const lines = { lines: 'universal', maxLines: MAX_AUDIT_LINES, strip: true } as const;
    for (const { value: record } of reader.jsonRecords(file, { ...lines, accept: (line) => line.startsWith('{') })) {
      if (!isRecord(record)) continue;
      if (record.type === 'system' && record.subtype === 'init') {
        for (const key of ['tools', 'skills'] as const) {
          const list = record[key];
          if (Array.isArray(list)) counts[key] = list.length;
        }
      } else if (record.type === 'result') {
        for (const key of ['total_cost_usd', 'num_turns', 'is_error']) if (key in record) result[key] = record[key];
      }
    }
  }
  const turns = result.num_turns;
  const cost = result.total_cost_usd;
  return {
    ...counts,
    turns:
      typeof turns === 'boolean'
        ? turns
          ? 'True'
          : 'False'
        : typeof turns === 'number' && Number.isInteger(turns)
          ? BigInt(turns).toString()
          : undefined,
    cost: typeof cost === 'number' ? cost : typeof cost === 'boolean' ? Number(cost) : undefined,
    error: typeof result.is_error === 'boolean' ? result.is_error : undefined,
  };
}

/** Whether `value` lies exactly halfway between two hundredths (200 × value is an odd integer). */
function exactHalfHundredth(value: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return false;
  const scaled = 200n * mantissa;
  const divisor = 1n << BigInt(-exponent);
  return scaled % divisor === 0n && (scaled / divisor) % 2n === 1n;
}

/** Python's `f"{value:.2f}"`: the exact binary value rounded to hundredths, a tie to even. */
export function pyFixed2(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  // toFixed gives exponent notation from 1e21 on, where every double is a whole number.
  if (magnitude >= 1e21) return `${sign}${BigInt(magnitude)}.00`;
  let text = magnitude.toFixed(2);
  // toFixed breaks an exact tie upwards; Python to the even hundredth.
  if (exactHalfHundredth(magnitude)) {
    const hundredths = BigInt(text.replace('.', ''));
    if (hundredths % 2n === 1n) {
      const even = (hundredths - 1n).toString().padStart(3, '0');
      text = `${even.slice(0, -2)}.${even.slice(-2)}`;
    }
  }
  return sign + text;
}

export const claudeDesktopCoworkParticipant = desktopSurfaceParticipant<RunScalars>({
  agentId: 'claude-desktop-cowork',
  help: {
    summary: "Publish Claude desktop's Co-Work runs (metadata only).",
    reads:
      "Reads the metadata of each Co-Work (local-agent mode) run the Claude desktop app keeps ($BOURDON_CLAUDE_DESKTOP_DIR, else ~/.config/Claude on Linux, ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows; its local-agent-mode-sessions folder) read-only: title, folders, model, permission mode, MCP tool count, and from each run's audit.jsonl only its turns, cost, error flag and tool and skill counts — never what was said. Nothing is written when that folder does not exist.",
  },
  store: 'local-agent-mode-sessions',
  sourceName: 'local_agent_mode_sessions',
  tag: 'claude-desktop-cowork',
  roleNarrative:
    "The Claude desktop app's Co-Work (local-agent mode). Bourdon reads only each run's local " +
    'metadata and the scalars of its audit transcript (title, folders, model, turns, cost, tool and ' +
    'skill counts), never what was said, so other agents can see what Co-Work runs did.',
  entityName: 'Claude Desktop Co-Work',
  entitySummary: 'Claude desktop app Co-Work / local-agent mode surface (metadata-only federation).',
  projectSummary: 'Project inferred from a Claude Desktop Co-Work run cwd.',
  untitled: '(untitled run)',
  extra: (_state: State, file, reader) => readAudit(reader, file),
  keyActions: ({ title, model, permission, mcpTools, extra }) => [
    titleAction(title),
    ...labelled('model', model, ACTION_LIMITS.model),
    ...labelled('permission', permission, ACTION_LIMITS.permission),
    ...(extra.turns !== undefined ? [`${extra.turns} turns`] : []),
    ...(extra.cost !== undefined ? [`$${pyFixed2(extra.cost)}`] : []),
    ...(extra.error ? ['error'] : []),
    ...mcpAction(mcpTools),
  ],
  capabilities: (kept) => {
    const tools = largest(kept.map((run) => run.extra.tools));
    const skills = largest(kept.map((run) => run.extra.skills));
    return [...(tools > 0 ? [`tools:${tools}`] : []), ...(skills > 0 ? [`skills:${skills}`] : [])];
  },
});
