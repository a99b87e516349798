// The job list: the search (job-search.js), keyset paging, and the actions an operator takes from a list — a job's
// own buttons (job-actions.js), the chosen jobs together (job-selection.js), and every DEAD or CANCELLED job that
// matches the search at once; only an admin key is offered them (access.js). The search lives in the URL
// (#/jobs?status=DEAD&queue=emails), so a view can be shared and the browser's back button pages back.

import { api, query } from './api.js';
import { badge, h, relative } from './dom.js';
import { jobActions } from './job-actions.js';
import { copyIdButton, jobIdText } from './job-id.js';
import { SEARCH_FIELDS, searchForm } from './job-search.js';
import { jobSelection } from './job-selection.js';
import { timestamp } from './time.js';

const PAGE = 25;
/** Statuses "Retry all matching" applies to (POST /jobs/retry). */
const RETRYABLE = ['DEAD', 'CANCELLED'];
/** Most jobs one POST /jobs/retry takes; the caller sends it again while it comes back full. */
const RETRY_BATCH = 1000;
/** Most calls one press makes: jobs that die again at once would otherwise be retried round and round. */
const MAX_RETRY_CALLS = 100;

function jobRow(job, ctx, selection) {
  const when = job.finishedAt
    ? `finished ${relative(job.finishedAt)}`
    : job.status === 'SCHEDULED' || job.status === 'RETRYING'
      ? `runs ${relative(job.runAt)}`
      : `created ${relative(job.createdAt)}`;
  const row = h(
    'tr',
    { class: 'clickable', 'data-job': job.id, tabindex: '0' },
    ctx.mayAct ? h('td', { class: 'select-cell' }, selection.checkbox(job)) : null,
    h(
      'td',
      { class: 'nowrap', 'data-cell': 'id' },
      h('a', { class: 'mono', href: `#/jobs/${job.id}` }, jobIdText(job.id)),
      copyIdButton(job.id),
    ),
    h('td', {}, h('span', { class: 'ident' }, job.type)),
    h('td', {}, h('span', { class: 'ident' }, job.queue)),
    h('td', {}, badge(job.status)),
    h('td', { class: 'num' }, `${job.attempts} / ${job.maxAttempts}`),
    h('td', { class: 'muted', title: timestamp(job.createdAt) }, when),
    h('td', { class: 'nowrap', 'data-cell': 'created' }, timestamp(job.createdAt)),
    h('td', { class: 'error-cell', title: job.lastError ?? '' }, job.lastError ?? ''),
    h('td', { class: 'actions' }, jobActions(job, ctx)),
  );
  row.addEventListener('click', () => ctx.go(`#/jobs/${job.id}`));
  row.addEventListener('keydown', (e) => e.key === 'Enter' && e.target === row && ctx.go(`#/jobs/${job.id}`));
  return row;
}

async function retryMatching(params, ctx) {
  const status = params.get('status');
  const filter = Object.fromEntries(['queue', 'type', 'key'].map((f) => [f, params.get(f) || undefined]).filter(([, v]) => v));
  const scope =
    Object.entries(filter)
      .map(([k, v]) => `${k} "${v}"`)
      .join(', ') || 'every queue';
  if (!window.confirm(`Retry every ${status} job (${scope})?`)) return;
  await ctx.perform(
    async () => {
      let retried = 0;
      for (let calls = 1; ; calls++) {
        const res = await api('POST', '/jobs/retry', { ...filter, status, limit: RETRY_BATCH });
        retried += res.retried;
        if (res.retried < RETRY_BATCH) return { retried, more: false };
        if (calls === MAX_RETRY_CALLS) return { retried, more: true };
      }
    },
    ({ retried, more }) =>
      `${retried} job${retried === 1 ? '' : 's'} put back to PENDING.` + (more ? ` More remain ${status}: press again to go on.` : ''),
  );
}

/** Renders the job list for the hash's query into `root`. */
export async function renderJobs(root, ctx, params) {
  const search = Object.fromEntries(SEARCH_FIELDS.map((f) => [f, params.get(f) ?? undefined]));
  const page = await api('GET', `/jobs${query({ ...search, limit: PAGE, cursor: params.get('cursor') })}`);
  const status = params.get('status');
  // The bulk retry filters by queue, type and key: offered only when the search holds nothing else.
  const retryAll = RETRYABLE.includes(status) && !search.payload && !search.createdFrom && !search.createdTo;
  const selection = jobSelection(page.items, ctx);
  const heads = ['Job', 'Type', 'Queue', 'Status', 'Attempts', 'When', 'Created', 'Last error', ''];

  root.replaceChildren(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Jobs'),
      retryAll && page.items.length > 0 && ctx.mayAct
        ? h(
            'button',
            { class: 'btn btn-primary', 'data-action': 'retry-matching', onclick: () => retryMatching(params, ctx) },
            `Retry all matching ${status}`,
          )
        : null,
    ),
    h('section', { class: 'card' }, searchForm(params, ctx)),
    h(
      'section',
      { class: 'card flush' },
      selection.bar(),
      page.items.length === 0
        ? h('p', { class: 'empty' }, 'No jobs match this search.')
        : h(
            'table',
            { class: 'table', id: 'jobs-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ctx.mayAct ? h('th', { class: 'select-cell' }, selection.headerBox()) : null,
                heads.map((t) => h('th', { class: t === 'Attempts' ? 'num' : '' }, t)),
              ),
            ),
            h(
              'tbody',
              {},
              page.items.map((job) => jobRow(job, ctx, selection)),
            ),
          ),
      h(
        'div',
        { class: 'pager' },
        params.get('cursor') ? h('a', { class: 'btn btn-ghost', href: `#/jobs${query(search)}` }, '← Newest') : h('span'),
        h('span', { class: 'muted' }, `${page.items.length} job${page.items.length === 1 ? '' : 's'} on this page`),
        page.nextCursor
          ? h('a', { class: 'btn', 'data-action': 'older', href: `#/jobs${query({ ...search, cursor: page.nextCursor })}` }, 'Older →')
          : h('span'),
      ),
    ),
  );
}
