// The find_entity answers a hostile peer gives, shared by test/attack.bounded-work.test.ts and
// bench/attack-latency.js so the test and the bench attack with the same answers: whole answers
// (name, level, matches), as a peer's answer must be to be read at all.

/** `count` distinct ids: `<prefix>0`, `<prefix>1`, … */
export const ids = (prefix, count) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** find_entity's answer for "bourdon" at public with these matches. */
export function findEntityAnswer(matches) {
  return { name: 'bourdon', access_level: 'public', include_private: false, matches };
}

/** The attack run's answer: one match carrying 30,000 agents and 30,000 tags. */
export function wideMatchAnswer() {
  return findEntityAnswer([
    { name: 'Bourdon', agents: ids('a', 30_000), types: [], summaries: {}, tags: ids('t', 30_000) },
  ]);
}

/** The worst answer under the byte cap: 60 matches of the same name, 1,000 agents and 1,000 tags each. */
export function worstAllowedAnswer() {
  return findEntityAnswer(
    Array.from({ length: 60 }, (_, m) => ({
      name: 'Bourdon',
      agents: ids(`m${m}-a`, 1_000),
      types: ['project'],
      summaries: {},
      tags: ids(`m${m}-t`, 1_000),
    })),
  );
}
