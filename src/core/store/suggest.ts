/**
 * "Did you mean …?": edit distance, and the sentence for an agent id that names no manifest,
 * said the same way by the CLI (an error, exit 1) and the MCP tools (a second text item beside
 * the engine's empty answer). A leaf of the core root: imports no part of core.
 */

/** Edit distance where swapping two neighbouring letters counts once ("agnets" → "agents"). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  // The table row by row; every cell is read after it is written, and within bounds.
  const d = Array.from({ length: rows * cols }, (_, k) => {
    const i = Math.floor(k / cols);
    const j = k % cols;
    return i === 0 ? j : j === 0 ? i : 0;
  });
  const at = (i: number, j: number): number => d[i * cols + j]!;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      d[i * cols + j] = distance;
    }
  }
  return at(a.length, b.length);
}

/** Ids longer than this are not compared (the distance is quadratic); they get no suggestion. */
const MAX_COMPARED_LENGTH = 200;

/**
 * The sentence for an agent id that is not among `ids` (`no agent "codx" in this library; did
 * you mean codex?`), or null when it is one of them. Peer ids (`peer:…`) pass: only the peer knows.
 */
export function unknownAgentMessage(agentId: string, ids: Iterable<string>): string | null {
  if (agentId.startsWith('peer:')) return null;
  const known = [...ids];
  if (known.includes(agentId)) return null;
  const close =
    agentId.length > MAX_COMPARED_LENGTH
      ? []
      : known
          .map((id) => ({ id, distance: editDistance(agentId, id) }))
          .filter((entry) => entry.distance <= Math.max(2, Math.floor(agentId.length / 3)))
          .sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id))
          .slice(0, 3)
          .map((entry) => entry.id);
  const hint = close.length ? `; did you mean ${close.join(', ')}?` : '; `bourdon agents` lists them';
  return `no agent ${JSON.stringify(agentId.slice(0, 80))} in this library${hint}`;
}
