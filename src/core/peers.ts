/**
 * Peer fan-out interface seen by the core. The MCP peer client implements it; the core only
 * asks "call this tool on every peer and give me what came back", and never waits past the
 * budget the implementation enforces.
 */
export interface PeerAnswer {
  peer: string;
  ok: boolean;
  latency_us: number;
  timed_out: boolean;
  payload: Record<string, unknown> | null;
  error?: string;
}

export interface PeerFanout {
  readonly names: readonly string[];
  call(tool: string, args: Record<string, unknown>, options?: { budgetMs?: number }): Promise<PeerAnswer[]>;
}
