/**
 * The engine's note conventions as Python has them: str.strip() and splitlines() boundaries,
 * frontmatter read as PyYAML reads it (YAML 1.1, str() of its values), H1 cuts.
 */
import { describe, expect, it } from 'vitest';
import { pyStr } from '../src/core/python-str.js';
import { cutTitle, firstParagraph, parseNote, tagList } from '../src/participants/kit/markdown.js';
import { pyStrip } from '../src/participants/kit/scrub.js';
import { graphEntity } from '../src/participants/kit/knowledge-graph.js';

describe('note conventions', () => {
  it('strips what Python strips: U+001C–U+001F and U+0085 yes, a BOM no', () => {
    expect(pyStrip('\x1f\x85 a b \t\n')).toBe('a b');
    expect(pyStrip('\ufeffa')).toBe('\ufeffa');
  });

  it('frontmatter: YAML 1.1 values as str() gives them; malformed means none, not a mapping the body after', () => {
    const note = parseNote('---\nname: yes\ntags: [true, 2026, 1.5, null, 2026-01-02]\n---\nbody\n');
    expect(note.meta?.name).toBe(true);
    expect(tagList(note.meta?.tags)).toEqual(['True', '2026', '1.5', 'None', '2026-01-02']);
    expect(note.body).toBe('body\n');
    expect(parseNote('---\nbad: [unclosed\n---\nx').meta).toBeNull();
    expect(parseNote('---\nbad: [unclosed\n---\nx').body).toBe('---\nbad: [unclosed\n---\nx');
    expect(parseNote('---\n- a list\n---\nx')).toEqual({ meta: null, body: 'x' });
    expect(parseNote('---\n!!omap [a: 1]\n---\nx')).toEqual({ meta: null, body: 'x' });
    expect(parseNote('---\n!custom a\n---\nx').body).toBe('---\n!custom a\n---\nx');
    expect(pyStr({ a: [1, 'b'] })).toBe("{'a': [1, 'b']}");
  });

  it('titles are cut at the first dash or colon run followed by a space, not inside words', () => {
    expect(cutTitle('Release Train -- weekly')).toBe('Release Train');
    expect(cutTitle('Lantern: status page')).toBe('Lantern');
    expect(cutTitle('Gamma — the third')).toBe('Gamma');
    expect(cutTitle('Sync-engine v2')).toBe('Sync-engine v2');
  });

  it('the first paragraph skips headings and blank lines before it and stops at the next', () => {
    expect(firstParagraph('# T\n\n  one\ntwo  \n\nthree')).toBe('one two');
    expect(firstParagraph('## Notes\nfirst\n# Next\nsecond')).toBe('first');
  });

  it('graph entities: two observations (non-strings count), credential ones redacted, then private', () => {
    const line = (observations: unknown[]) =>
      JSON.stringify({ type: 'entity', name: 'Svc', entityType: 'x/service', observations });
    expect(graphEntity(line(['a', 7, 'c']))).toEqual({ name: 'Svc', type: 'service', summary: 'a', tags: ['service'] });
    expect(graphEntity(line(['ok', 'fine', 'the password is x']))?.visibility).toBe('private');
    expect(graphEntity(line(['uses sk_live_abc']))).toMatchObject({
      summary: '[redacted -- contains credential-like content]',
      visibility: 'private',
    });
    expect(graphEntity('{"type":"relation","from":"a","to":"b"}')).toBeNull();
    expect(graphEntity('{not json')).toBeNull();
    expect(graphEntity('{"type":"entity","name":"","observations":["no name"]}')).toBeNull();
  });
});
