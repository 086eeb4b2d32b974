/**
 * The alias-expansion bound of both YAML readings (yaml.ts). Aliases are references in what
 * js-yaml builds, so a "billion laughs" document costs nothing to parse but everything to walk:
 * a document that uses aliases is measured once (each shared node counted once per use,
 * memoised, so the check is linear in the document) and refused past `MAX_EXPANDED_NODES`.
 */

/** Nodes a document may expand to through its aliases. */
export const MAX_EXPANDED_NODES = 2_000_000;

/** An alias (*a) in node position; a false positive only costs the expansion check. */
const ALIAS = /(?:^|[\s,[{:?-])\*[^\s,[\]{}]/m;

/**
 * Throws when `root`, read from `text`, has more than `MAX_EXPANDED_NODES` nodes with every
 * alias expanded; a text without an alias is not walked.
 */
export function checkExpansion(text: string, root: unknown): void {
  if (!ALIAS.test(text)) return;
  const sizes = new Map<object, number>();
  const size = (node: unknown): number => {
    if (node === null || typeof node !== 'object') return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      total += size(child);
      if (total > MAX_EXPANDED_NODES) throw new Error(`aliases expand to more than ${MAX_EXPANDED_NODES} nodes`);
    }
    sizes.set(node, total);
    return total;
  };
  size(root);
}
