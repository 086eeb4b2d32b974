/**
 * The page's views by path, and one view rendered in the frame (layout.ts) with the flash on
 * top: a view that throws is shown as its failure, inside the page, with the code's HTTP status
 * (500 only for a bug, core/errors.ts codeOf).
 */
import type { OperationContext } from '../core/context.js';
import { codeOf, describeError, httpStatusOf } from '../core/errors.js';
import { html } from './html.js';
import { layout, type Flash } from './layout.js';
import { activityView } from './views/activity.js';
import { agentView } from './views/agent.js';
import { agentsView } from './views/agents.js';
import { auditView } from './views/audit.js';
import { errorBox, type View, type ViewRequest } from './views/common.js';
import { historyView, rollbackConfirmView } from './views/history.js';
import { searchView } from './views/search.js';
import { stagingConfirmView, stagingView } from './views/staging.js';
import { workstreamsView } from './views/workstreams.js';

type Render = (req: ViewRequest) => Promise<View>;

const ROUTES: Record<string, Render> = {
  '/': agentsView,
  '/agents': agentsView,
  '/activity': activityView,
  '/workstreams': workstreamsView,
  '/staging': stagingView,
  '/staging/confirm': stagingConfirmView,
  '/agent': agentView,
  '/history': historyView,
  '/history/confirm': rollbackConfirmView,
  '/audit': auditView,
  '/search': searchView,
};

/** A view, or the failure it threw shown in the page (its header and navigation, the way back). */
async function viewOrFailure(ctx: OperationContext, render: Render, req: ViewRequest): Promise<View> {
  try {
    return await render(req);
  } catch (error) {
    const failure = codeOf(error);
    if (failure === 'internal') ctx.warn(`ui: ${describeError(error)}`);
    const title = failure === 'internal' ? 'Error' : 'Not possible';
    return {
      title,
      body: html`<h1>${title}</h1>
        ${errorBox(describeError(error))}`,
      failure,
    };
  }
}

/** What one page request renders with: the library, the session's CSRF token, the audit log. */
export interface PageRequest {
  ctx: OperationContext;
  auditPath: string;
  csrf: string;
  url: URL;
  flash: Flash | null;
}

/** The page at `url.pathname` in its frame, and its status: `status`, or its own failure's (404 for no such page). */
export async function renderPage(request: PageRequest, status: number): Promise<{ status: number; page: string }> {
  const { ctx, url, flash } = request;
  const render = Object.hasOwn(ROUTES, url.pathname) ? ROUTES[url.pathname] : undefined;
  if (!render)
    return { status: 404, page: layout({ title: 'Not found', body: html`<h1>Not found</h1>` }, url.pathname, flash) };
  const view = await viewOrFailure(ctx, render, {
    ctx,
    params: url.searchParams,
    now: ctx.now(),
    csrf: request.csrf,
    auditPath: request.auditPath,
  });
  return { status: view.failure ? httpStatusOf(view.failure) : status, page: layout(view, url.pathname, flash) };
}
