/**
 * Peer fan-out interface seen by the core. The MCP peer client implements it; the core only
 * asks "call this tool on every peer and give me what came back", and never waits past the
 * budget the implementation enforces.
 */
import type { AnyAnswer, ToolArguments } from './payload.js';

export interface PeerAnswer {
  peer: string;
  ok: boolean;
  latency_us: number;
  timed_out: boolean;
  /** The answer, read through its tool's model (peer-answers.ts); null when there is none. */
  payload: AnyAnswer | null;
  error?: string;
  /** The peer answered, and its tool list has no such tool (the engine has no list_notes): not unreachable. */
  not_offered?: boolean;
}

export interface PeerFanout {
  readonly names: readonly string[];
  /** Asks every peer, or with `only` just the peers it names (a second question to some of them). */
  call(
    tool: string,
    args: ToolArguments,
    options?: { budgetMs?: number; only?: readonly string[] },
  ): Promise<PeerAnswer[]>;
}
