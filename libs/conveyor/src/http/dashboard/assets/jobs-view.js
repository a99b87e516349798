// The job list: filters (queue, type, status, text in the idempotency key), keyset paging, and the
// actions an operator takes from a list — retry a DEAD job, cancel a waiting one, retry every DEAD job
// that matches the filter; only an admin key is offered them (access.js). The filter lives in the URL (#/jobs?status=DEAD&queue=emails), so a view can
// be shared and the browser's back button pages back.

import { api, query } from './api.js';
import { badge, h, relative, timestamp } from './dom.js';
import { copyIdButton, jobIdText, shortJobId } from './job-id.js';

const STATUSES = ['SCHEDULED', 'PENDING', 'RUNNING', 'RETRYING', 'COMPLETED', 'DEAD', 'CANCELLED'];
const WAITING = ['SCHEDULED', 'PENDING', 'RETRYING'];
const PAGE = 25;
const FILTERS = ['queue', 'type', 'status', 'key'];

/** Retry and cancel buttons for what a job's status allows, for a key that may press them. */
export function jobActions(job, ctx, { small = true } = {}) {
  const cls = small ? 'btn btn-small' : 'btn';
  const buttons = [];
  if (!ctx.mayAct) return buttons;
  if (job.status === 'DEAD' || job.status === 'CANCELLED') {
    buttons.push(
      h(
        'button',
        {
          class: `${cls} btn-primary`,
          'data-action': 'retry',
          onclick: (e) => (e.stopPropagation(), ctx.act(`/jobs/${job.id}/retry`, `Job ${shortJobId(job.id)} is PENDING again.`)),
        },
        'Retry',
      ),
    );
  }
  if (WAITING.includes(job.status)) {
    buttons.push(
      h(
        'button',
        {
          class: `${cls} btn-danger`,
          'data-action': 'cancel',
          onclick: (e) => (e.stopPropagation(), ctx.act(`/jobs/${job.id}/cancel`, `Job ${shortJobId(job.id)} cancelled.`)),
        },
        'Cancel',
      ),
    );
  }
  return buttons;
}

function filterForm(params, ctx) {
  const field = (name, label, input) => h('label', { class: 'field' }, h('span', {}, label), input);
  const text = (name, placeholder) => h('input', { name, value: params.get(name) ?? '', placeholder, spellcheck: 'false' });
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    STATUSES.map((st) => h('option', { value: st, selected: params.get('status') === st }, st)),
  );
  const form = h(
    'form',
    { class: 'filters', id: 'job-filters' },
    field('queue', 'Queue', text('queue', 'any queue')),
    field('type', 'Type', text('type', 'any type')),
    field('status', 'Status', status),
    field('key', 'Idempotency key contains', text('key', 'text in the key')),
    h(
      'div',
      { class: 'filter-buttons' },
      h('button', { type: 'submit', class: 'btn btn-primary' }, 'Apply'),
      h('a', { class: 'btn btn-ghost', href: '#/jobs' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    ctx.go(`#/jobs${query(Object.fromEntries(FILTERS.map((f) => [f, String(data.get(f) ?? '').trim()])))}`);
  });
  return form;
}

function jobRow(job, ctx) {
  const when = job.finishedAt
    ? `finished ${relative(job.finishedAt)}`
    : job.status === 'SCHEDULED' || job.status === 'RETRYING'
      ? `runs ${relative(job.runAt)}`
      : `created ${relative(job.createdAt)}`;
  const row = h(
    'tr',
    { class: 'clickable', 'data-job': job.id, tabindex: '0' },
    h(
      'td',
      { class: 'nowrap', 'data-cell': 'id' },
      h('a', { class: 'mono', href: `#/jobs/${job.id}` }, jobIdText(job.id)),
      copyIdButton(job.id),
    ),
    h('td', {}, job.type),
    h('td', {}, job.queue),
    h('td', {}, badge(job.status)),
    h('td', { class: 'num' }, `${job.attempts} / ${job.maxAttempts}`),
    h('td', { class: 'muted', title: timestamp(job.createdAt) }, when),
    h('td', { class: 'error-cell', title: job.lastError ?? '' }, job.lastError ?? ''),
    h('td', { class: 'actions' }, jobActions(job, ctx)),
  );
  row.addEventListener('click', () => ctx.go(`#/jobs/${job.id}`));
  row.addEventListener('keydown', (e) => e.key === 'Enter' && ctx.go(`#/jobs/${job.id}`));
  return row;
}

async function retryMatching(params, ctx) {
  const filter = Object.fromEntries(['queue', 'type', 'key'].map((f) => [f, params.get(f) || undefined]).filter(([, v]) => v));
  const scope =
    Object.entries(filter)
      .map(([k, v]) => `${k} "${v}"`)
      .join(', ') || 'every queue';
  if (!window.confirm(`Retry every DEAD job (${scope})?`)) return;
  await ctx.act('/jobs/retry', (res) => `${res.retried} job${res.retried === 1 ? '' : 's'} put back to PENDING.`, filter);
}

/** Renders the job list for the hash's query into `root`. */
export async function renderJobs(root, ctx, params) {
  const filter = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? undefined]));
  const page = await api('GET', `/jobs${query({ ...filter, limit: PAGE, cursor: params.get('cursor') })}`);
  const isDeadView = params.get('status') === 'DEAD';

  root.replaceChildren(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Jobs'),
      isDeadView && page.items.length > 0 && ctx.mayAct
        ? h(
            'button',
            { class: 'btn btn-primary', 'data-action': 'retry-matching', onclick: () => retryMatching(params, ctx) },
            'Retry all matching',
          )
        : null,
    ),
    h('section', { class: 'card' }, filterForm(params, ctx)),
    h(
      'section',
      { class: 'card flush' },
      page.items.length === 0
        ? h('p', { class: 'empty' }, 'No jobs match these filters.')
        : h(
            'table',
            { class: 'table', id: 'jobs-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Job', 'Type', 'Queue', 'Status', 'Attempts', 'When', 'Last error', ''].map((t) =>
                  h('th', { class: t === 'Attempts' ? 'num' : '' }, t),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              page.items.map((job) => jobRow(job, ctx)),
            ),
          ),
      h(
        'div',
        { class: 'pager' },
        params.get('cursor') ? h('a', { class: 'btn btn-ghost', href: `#/jobs${query(filter)}` }, '← Newest') : h('span'),
        h('span', { class: 'muted' }, `${page.items.length} job${page.items.length === 1 ? '' : 's'} on this page`),
        page.nextCursor
          ? h('a', { class: 'btn', 'data-action': 'older', href: `#/jobs${query({ ...filter, cursor: page.nextCursor })}` }, 'Older →')
          : h('span'),
      ),
    ),
  );
}
