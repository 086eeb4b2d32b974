/**
 * What reaches a terminal: the CLI's own colour codes, and nothing else that a terminal acts on.
 * Text from data (a row's summary, a peer's agent name, a file name in a warning) may hold any
 * escape sequence — SGR colour codes (`ESC[8m` conceals, `ESC[31m` recolours), palette changes
 * (`ESC]4;…BEL`, OSC 10/11/104), C1 controls (U+009B is a CSI by itself) — and every one of them
 * is shown escaped (`\u001b[31m`), in one last pass over every human output (printableOutput:
 * stdout through output.ts's humanText, stderr through width.ts's stderrLine).
 *
 * The pass tells our codes from data's by a stamp: the styles write each code as
 * `ESC[<stamp>;<code>m`, the stamp a random number made once per process and never printed (the
 * pass writes the code without it). Data cannot carry the stamp, so even a code identical to one
 * of our own palette's is escaped. A stamped code is still a well-formed colour code, so widths
 * are measured the same before and after the pass (width.ts counts colour codes as nothing).
 *
 * The codes themselves are chalk's (output.ts, loaded only when colour is shown); no chalk and no
 * oclif here: the fast path (fast-path.ts) prints its warnings through this too.
 */

/**
 * Invisible characters that change what a reader sees without showing themselves: bidi
 * overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069), the Arabic letter mark
 * (U+061C), zero-width and directional marks (U+200B–U+200F) and U+FEFF. Escaped like control
 * characters, as the page escapes them, so `evil\u202egnp.exe` cannot pass for another name.
 */
const INVISIBLE = '\\u061c\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff';
const escapeChar = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
/** Every C0 and C1 control, DEL and the invisible characters. */
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE}]`, 'g');
/** What the last pass escapes: UNPRINTABLE but a line break. */
const UNPRINTED_CHARACTER = `[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE}]`;
const UNPRINTED = new RegExp(UNPRINTED_CHARACTER, 'g');

/**
 * The stamp our codes carry until the last pass: 30 random digits, unknown to any data. Made
 * with the first style, so a run without colour (scripts, hooks) never loads the random source.
 */
let stamp: string | undefined;
/** The last pass's pattern once there is a stamp: our stamped codes (the code captured), or one unprinted character. */
let stampedOrUnprintable: RegExp | undefined;

function theStamp(): string {
  if (stamp === undefined) {
    stamp = Array.from(crypto.getRandomValues(new Uint32Array(3)), (n) => String(n).padStart(10, '0')).join('');
    stampedOrUnprintable = new RegExp(`\\u001b\\[${stamp};([0-9;]*)m|${UNPRINTED_CHARACTER}`, 'g');
  }
  return stamp;
}

/** A colour code as chalk writes it (SGR), to be stamped. */
// eslint-disable-next-line no-control-regex -- the colour codes chalk writes for our styles
const COLOUR_CODE = /\u001b\[([0-9;]*)m/g;

/**
 * One of our styles from one whose codes another writes (chalk's): the text's data escaped first
 * (printableOutput: any escape sequence or control character it carries shown escaped; our own
 * stamped codes, from a style nested inside, given back as plain codes so the style nests them
 * as it would), then the style applied, then every colour code in what it wrote stamped — each
 * is the style's own, since the text held no other by then.
 */
export function stampedStyle(style: (text: string) => string): (text: string) => string {
  return (text: string) => {
    if (text === '') return '';
    const stampNow = theStamp();
    return style(printableOutput(text)).replace(
      COLOUR_CODE,
      (_code, params: string) => `\u001b[${stampNow};${params}m`,
    );
  };
}

/**
 * Control characters in data (ESC, CR, BEL, …) and invisible ones (INVISIBLE) shown escaped as
 * `\u001b`, so no row a caller committed can move the cursor, clear the screen, fake a line or
 * reorder what the reader sees in the terminal.
 */
export function printable(value: unknown): string {
  return String(value).replace(UNPRINTABLE, escapeChar);
}

/**
 * The last pass over whole human outputs: our stamped colour codes written as plain colour
 * codes, every other control character (of an escape sequence or alone) shown escaped; line
 * breaks kept.
 */
export function printableOutput(text: string): string {
  if (!stampedOrUnprintable) return text.replace(UNPRINTED, escapeChar);
  // A match of the stamped alternative captures its code; a lone character captures nothing.
  return text.replace(stampedOrUnprintable, (match, code: string | undefined) =>
    code === undefined ? escapeChar(match) : `\u001b[${code}m`,
  );
}
