/**
 * What the YAML writer does so that PyYAML (the engine's reader) reads back exactly the strings
 * we wrote. PyYAML's reader refuses a whole document that holds a character outside its
 * printable set (C0 and C1 controls, DEL, lone surrogates, U+FFFE and U+FFFF), and reads some
 * printable ones differently from us when they are written raw (U+0085, U+2028 and U+2029 are
 * line breaks to it; U+FEFF is a byte-order mark). A string holding any of them is written
 * double-quoted, and each such character is written as an escape (`\x85`, `\u2028`, …), which
 * every YAML reader decodes to the character itself.
 */

/**
 * The characters written escaped: everything outside PyYAML's printable set (tab, LF and CR
 * are left to the writer, which already escapes them where it must), plus NEL, the two Unicode
 * line separators and U+FEFF. With the `u` flag a lone surrogate is one character here and an
 * astral pair is not matched.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const ESCAPED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/u;
const ESCAPED_ALL = new RegExp(ESCAPED.source, 'gu');

/**
 * Where the writer's own choice of style is read otherwise by PyYAML: a tab in a plain scalar
 * (PyYAML refuses it), and a block scalar whose line starts with a space or tab (written
 * without an indentation indicator, PyYAML takes that whitespace as indentation).
 */
const RESTYLED = /\t|\n[ \t]|^[ \t][^]*\n/;

/**
 * Whether a string must be written double-quoted: it holds a character written escaped (see
 * `escapeForPyYaml`), or one the writer's other styles would let PyYAML misread (RESTYLED).
 */
export function needsEscapes(text: string): boolean {
  return ESCAPED.test(text) || RESTYLED.test(text);
}

/**
 * The serialised document with every escaped character (see ESCAPED) replaced by its escape.
 * Sound only when every string holding one was written double-quoted (`needsEscapes`): there,
 * and only there, the raw character and its escape mean the same.
 */
export function escapeForPyYaml(text: string): string {
  return text.replace(ESCAPED_ALL, (ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
