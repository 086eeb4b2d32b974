/**
 * The project names the engine recognises in free text and paths (claude_code_automations'
 * hints, also used by the Claude desktop surfaces): each hint whose lower-case form occurs in
 * the text, in this order, a case-insensitive duplicate of one already found left out (so
 * `pruning` gives `Prun`, never `PRUN` as well).
 */
export const PROJECT_HINTS = [
  'ShipStable',
  'ILTT',
  'Prun',
  'PRUN',
  'OMNIvour',
  'Castmore',
  'Bourdon',
  'RADLAB',
  'CHIP',
  'Claude Brain',
  'Cursor',
  'Copilot',
  'Codex',
  'Cascade',
] as const;

/**
 * The hints found in `lowered` (text already lower-cased), appended to `found` unless their
 * lower-case form is already there; returns `found`.
 */
export function addProjectHints(lowered: string, found: string[]): string[] {
  for (const hint of PROJECT_HINTS) {
    const key = hint.toLowerCase();
    if (lowered.includes(key) && !found.some((name) => name.toLowerCase() === key)) found.push(hint);
  }
  return found;
}
