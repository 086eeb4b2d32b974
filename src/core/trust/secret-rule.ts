/** One rule of the secret rule set (secret-rules.ts): how a secret value is found in a text. */
export interface SecretRule {
  readonly id: string;
  /** Global, with indices (`gd`); a `value` group marks the secret, else the whole match does. */
  readonly pattern: RegExp;
  /** Lower-case words of which a text must hold one for the rule to run (a cheap gate). */
  readonly hints: readonly string[];
  /** A last check of a match (default: every match counts). */
  readonly accept?: (match: RegExpMatchArray) => boolean;
}
