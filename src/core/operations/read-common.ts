/**
 * What the read operations share: resolving a call's access level (the echo every answer
 * carries), asking peers (or nobody) with the level this caller may read at, listing the peers
 * that did not answer. The answers' shapes are declared in answers.ts.
 */
import { resolveAccess, type AccessLevel, type ResolvedAccess } from '../trust/access.js';
import type { OperationContext } from '../context.js';
import { boundAnswers, shouldFanOut, unreachable, type UnreachablePeer } from '../federation/federation.js';
import type { PeerAnswer } from '../peers.js';
import type { ToolArguments } from '../payload.js';

export interface AccessArgs {
  access_level?: string | null;
  include_private?: boolean | null;
}

/** The access arguments a read answer echoes: the level as asked (or defaulted), and include_private. */
export type AccessEcho = { access_level: string; include_private: boolean };

/** Peers that did not answer, listed when some did not (federated answers only). */
type Reachability = { peers_unreachable?: UnreachablePeer[]; peers_without_tool?: string[] };

export function access(ctx: OperationContext, args: AccessArgs, toolDefault: AccessLevel): ResolvedAccess {
  return resolveAccess(args, toolDefault, ctx.env, ctx.caller.ceiling);
}

/** Asks every peer (or only those `only` names), or nobody: null when this call does not fan out. */
export async function askPeers(
  ctx: OperationContext,
  args: { federation_hop?: number | null },
  tool: string,
  peerArgs: ToolArguments,
  budgetMs?: number,
  only?: readonly string[],
): Promise<PeerAnswer[] | null> {
  if (!shouldFanOut(ctx, args)) return null;
  const options = { ...(budgetMs === undefined ? {} : { budgetMs }), ...(only ? { only } : {}) };
  const answers = await ctx.peers!.call(tool, peerArgs, options);
  // Bounded once here, before any merge sees a peer's rows.
  return boundAnswers(answers, ctx.now());
}

/**
 * Adds the list of peers that did not answer, when some did not, and the names of the peers that
 * answered without offering the tool (`peers_without_tool`: an engine peer has no list_notes).
 */
export function withReachability<T extends object>(payload: T, answers: PeerAnswer[] | null): T & Reachability {
  if (!answers) return payload;
  const missing = unreachable(answers);
  const withoutTool = answers.filter((answer) => answer.not_offered).map((answer) => answer.peer);
  return {
    ...payload,
    ...(missing.length ? { peers_unreachable: missing } : {}),
    ...(withoutTool.length ? { peers_without_tool: withoutTool } : {}),
  };
}

/**
 * The arguments a peer gets: the level this caller may actually read at here — after
 * include_private and the caller's ceiling — never the level it asked for. A remote caller
 * capped at team must not get a loopback peer's private rows through this server.
 */
export function peerAccessArgs(level: ResolvedAccess, rest: ToolArguments): ToolArguments {
  return { ...rest, access_level: level.effective };
}
