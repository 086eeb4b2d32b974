/** Types of hostile-matches.mjs (the hostile peer's find_entity answers tests and benches share). */
export interface HostileMatch {
  name: string;
  agents: string[];
  types: string[];
  summaries: Record<string, never>;
  tags: string[];
}

export interface HostileAnswer {
  name: string;
  access_level: 'public';
  include_private: false;
  matches: HostileMatch[];
}

export function ids(prefix: string, count: number): string[];
export function findEntityAnswer(matches: HostileMatch[]): HostileAnswer;
export function wideMatchAnswer(): HostileAnswer;
export function worstAllowedAnswer(): HostileAnswer;
