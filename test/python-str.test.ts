/**
 * Python's str(), repr() and truthiness (core/python-str.ts), one definition for every reader:
 * YAML front matter (PyYAML's values), JSON as `json.loads` reads it, SQLite cells, commit rows.
 * The cases are where the exporters', the commit merge's and the registry's copies used to
 * disagree; each expected text is what CPython prints.
 */
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { pyRepr, pyStr, truthy } from '../src/core/python-str.js';
import { textField } from '../src/participants/automations/automations.js';
import { isMapping, parseNote } from '../src/participants/kit/markdown.js';
import { parsePythonJson } from '../src/participants/kit/python-json.js';

describe('str() and truthiness of the values Bourdon reads', () => {
  it('YAML front matter: floats past 1e16, timestamps inside lists, \\r in a repr, empty and zero values', () => {
    const meta = parseNote(
      '---\nbig: 1.0e+16\nsmall: 1.5e-7\nwhen: 2026-04-27\nitems: [2026-04-27, "it\'s", "a\\rb"]\nempty: {}\nzero: 0.0\n---\nbody\n',
    ).meta;
    expect(meta).not.toBeNull();
    expect(pyStr(meta?.big)).toBe('1e+16');
    expect(pyStr(meta?.when)).toBe('2026-04-27');
    expect(truthy(meta?.when)).toBe(true);
    expect(pyStr(meta?.items)).toBe(`[datetime.date(2026, 4, 27), "it's", 'a\\rb']`);
    expect(truthy(meta?.empty)).toBe(false);
    expect(truthy(meta?.zero)).toBe(false);
  });

  it("TOML: a date is true, as Python's datetime is (an automation's date-valued field is its text)", () => {
    const table = parseToml('name = 2026-04-27\nwhen = 2026-04-27T10:00:00Z\n');
    expect(truthy(table.name)).toBe(true);
    expect(textField(table, 'name', 'fallback')).toBe('2026-04-27');
    expect(textField(table, 'when', 'fallback')).toBe('2026-04-27 10:00:00+00:00');
  });

  it('JSON as json.loads reads it: a float zero is false, floats and big integers keep their text', () => {
    const value = parsePythonJson('{"f": 0.0, "g": 2.0, "big": 1e16, "i": 12345678901234567890, "n": NaN}');
    if (!isMapping(value)) throw new Error('not a mapping');
    const fields = value;
    expect(truthy(fields.f)).toBe(false);
    expect(truthy(fields.n)).toBe(true);
    expect(pyStr(fields.g)).toBe('2.0');
    expect(pyStr(fields.big)).toBe('1e+16');
    expect(pyStr(fields.i)).toBe('12345678901234567890');
    expect(pyStr([fields.g, fields.i])).toBe('[2.0, 12345678901234567890]');
  });

  it('SQLite cells: REALs print as Python floats, a BLOB as its text, an empty BLOB is false', () => {
    expect(pyStr(1.5e-7)).toBe('1.5e-07');
    expect(pyStr(Infinity)).toBe('inf');
    expect(pyStr(42)).toBe('42');
    expect(pyStr(new TextEncoder().encode('abc'))).toBe('abc');
    expect(truthy(new Uint8Array(0))).toBe(false);
    expect(truthy(new Uint8Array(1))).toBe(true);
  });

  it('commit rows: repr quotes as Python picks, None, booleans and nested mappings', () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr('say "hi" it\'s')).toBe(`'say "hi" it\\'s'`);
    expect(pyStr({ a: null, b: [true, false] })).toBe("{'a': None, 'b': [True, False]}");
    expect(truthy('0')).toBe(true);
    expect(truthy([])).toBe(false);
  });
});
