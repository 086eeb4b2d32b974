/**
 * The page's `html` template escapes every interpolated value, in text and in attributes, so
 * nothing a manifest holds can become markup: checked on the template itself and end to end,
 * from a hostile manifest on disk through the operations to the activity view's HTML.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/core/context.js';
import { LibraryStore } from '../src/core/store/library.js';
import { html } from '../src/ui/html.js';
import { activityView } from '../src/ui/views/activity.js';
import { agentsView } from '../src/ui/views/agents.js';
import type { ViewRequest } from '../src/ui/views/common.js';
import { tempDir } from './helpers/fixtures.js';

const HOSTILE = `<script>alert("x")</script> & "quoted" 'single' <img src=x onerror=alert(1)>`;

describe('the html template', () => {
  it('escapes <, >, &, " and \' in text and in attribute values, and keeps its own markup', () => {
    const out = html`<p title="${HOSTILE}">${HOSTILE}</p>`.value;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39; &lt;img src=x onerror=alert(1)&gt;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39; &lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('escapes an entity as text, not as the character it names', () => {
    expect(html`${'&lt;b&gt;'}`.value).toBe('&amp;lt;b&amp;gt;');
  });

  it('escapes values nested in lists, and leaves nothing of a closing quote to break out of an attribute', () => {
    const out = html`<a href="/x?q=${'" onclick="steal()'}">${['<i>', html`<b>${'&'}</b>`]}</a>`.value;
    expect(out).toBe('<a href="/x?q=&quot; onclick=&quot;steal()">&lt;i&gt;<b>&amp;</b></a>');
  });
});

describe('a hostile manifest row, end to end', () => {
  const library = tempDir('bourdon-ui-escaping-');
  afterAll(() => fs.rmSync(library, { recursive: true, force: true }));
  fs.mkdirSync(path.join(library, 'agents'));
  const day = new Date().toISOString().slice(0, 10);
  const quoted = JSON.stringify(HOSTILE);
  fs.writeFileSync(
    path.join(library, 'agents', 'mallory.l5.yaml'),
    [
      "spec_version: '0.1'",
      'agent: {id: mallory, type: other}',
      `role_narrative: ${quoted}`,
      'recent_sessions:',
      `  - date: '${day}'`,
      `    cwd: ${quoted}`,
      `    project_focus: [${quoted}]`,
      `    key_actions: [${quoted}]`,
      'notes:',
      `  - date: '${day}'`,
      `    title: ${quoted}`,
      `    text: ${quoted}`,
      '',
    ].join('\n'),
  );
  const request = (params: Record<string, string> = {}): ViewRequest => ({
    ctx: createContext(new LibraryStore(library, { warn: () => {} }), { warn: () => {} }),
    params: new URLSearchParams(params),
    now: new Date(),
    csrf: 'token',
    auditPath: path.join(library, 'audit.jsonl'),
  });

  for (const [name, view] of [
    ['activity', activityView],
    ['agents', agentsView],
  ] as const) {
    it(`the ${name} view shows the row's text escaped, never as markup`, async () => {
      const { body } = await view(request());
      const out = body.value;
      expect(out).not.toContain('<script>');
      expect(out).not.toContain('<img');
      expect(out).not.toMatch(/ onerror=alert\(1\)>/);
      if (name === 'activity')
        expect(out).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quoted&quot;');
    });
  }
});
