/** Counted nouns in text people read ("1 entity", "2 entities"), the one rule every part uses. */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
