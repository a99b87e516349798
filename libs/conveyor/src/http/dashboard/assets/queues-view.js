// The overview: per queue, jobs by status, the age of the oldest ready job, throughput over the last
// minutes, paused or not — with pause and resume for an admin key. Refreshed every few seconds while shown.

import { api, query } from './api.js';
import { sparkline, throughputChart } from './chart.js';
import { duration, h } from './dom.js';

const STATUSES = ['SCHEDULED', 'PENDING', 'RUNNING', 'RETRYING', 'COMPLETED', 'DEAD', 'CANCELLED'];
const WINDOW_MINUTES = 15;

function emptyMinutes(since, minutes) {
  const start = new Date(since).getTime();
  return Array.from({ length: minutes }, (_, i) => ({ minute: new Date(start + i * 60_000).toISOString(), completed: 0, failed: 0 }));
}

function totals(queues) {
  const sum = (status) => queues.reduce((n, q) => n + q.counts[status], 0);
  return [
    { label: 'Ready now', value: queues.reduce((n, q) => n + q.ready, 0), hint: 'due, waiting for a worker' },
    { label: 'Running', value: sum('RUNNING'), hint: 'held by a worker' },
    { label: 'Retrying', value: sum('RETRYING'), hint: 'waiting for their next attempt' },
    { label: 'Dead', value: sum('DEAD'), hint: 'need an operator', tone: sum('DEAD') > 0 ? 'bad' : undefined, href: '#/jobs?status=DEAD' },
  ];
}

function statCard({ label, value, hint, tone, href }) {
  const body = [
    h('div', { class: 'stat-value' }, String(value)),
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-hint' }, hint),
  ];
  return href
    ? h('a', { class: `stat ${tone ? `stat-${tone}` : ''}`, href, 'data-stat': label }, body)
    : h('div', { class: `stat ${tone ? `stat-${tone}` : ''}`, 'data-stat': label }, body);
}

function queueRow(q, minutes, ctx) {
  const action = !ctx.mayAct
    ? null
    : q.paused
      ? h(
          'button',
          {
            class: 'btn btn-small btn-primary',
            'data-action': 'resume',
            onclick: () => ctx.act(`/queues/${encodeURIComponent(q.name)}/resume`, `Queue ${q.name} resumed.`),
          },
          'Resume',
        )
      : h(
          'button',
          {
            class: 'btn btn-small',
            'data-action': 'pause',
            onclick: () => ctx.act(`/queues/${encodeURIComponent(q.name)}/pause`, `Queue ${q.name} paused.`),
          },
          'Pause',
        );
  const done = minutes.reduce((n, m) => n + m.completed, 0);
  const failed = minutes.reduce((n, m) => n + m.failed, 0);
  return h(
    'tr',
    { 'data-queue': q.name },
    h('td', {}, h('a', { class: 'queue-name ident', href: `#/jobs${query({ queue: q.name })}` }, q.name)),
    h(
      'td',
      {},
      h(
        'span',
        { class: `pill ${q.paused ? 'pill-paused' : 'pill-active'}`, 'data-paused': String(q.paused) },
        q.paused ? 'Paused' : 'Active',
      ),
    ),
    STATUSES.map((st) =>
      h(
        'td',
        { class: `num ${q.counts[st] === 0 ? 'zero' : ''} ${st === 'DEAD' && q.counts[st] > 0 ? 'num-bad' : ''}`, 'data-count': st },
        q.counts[st] === 0 ? '0' : h('a', { href: `#/jobs${query({ queue: q.name, status: st })}` }, String(q.counts[st])),
      ),
    ),
    h('td', { class: 'num', 'data-oldest-ready': '' }, duration(q.oldestReadyAgeSeconds)),
    h(
      'td',
      { class: 'spark' },
      sparkline(minutes),
      h('span', { class: 'spark-caption' }, `${done} done${failed ? `, ${failed} dead` : ''}`),
    ),
    h('td', { class: 'actions' }, action),
  );
}

/** Renders the overview into `root`; returns a refresh function. */
export async function renderQueues(root, ctx) {
  const [{ queues }, throughput] = await Promise.all([
    api('GET', '/queues'),
    api('GET', `/queues/throughput${query({ minutes: WINDOW_MINUTES })}`),
  ]);
  const byQueue = new Map(throughput.queues.map((q) => [q.name, q.perMinute]));
  const all = emptyMinutes(throughput.since, throughput.minutes);
  for (const series of byQueue.values()) {
    series.forEach((m, i) => {
      all[i].completed += m.completed;
      all[i].failed += m.failed;
    });
  }
  const finished = all.reduce((n, m) => n + m.completed + m.failed, 0);

  root.replaceChildren(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Queues'),
      h('p', { class: 'muted' }, `${queues.length} queue${queues.length === 1 ? '' : 's'} · refreshed every 5 s`),
    ),
    h('section', { class: 'stats' }, totals(queues).map(statCard)),
    h(
      'section',
      { class: 'card' },
      h(
        'div',
        { class: 'card-head' },
        h('h2', {}, `Throughput, last ${throughput.minutes} minutes`),
        h(
          'div',
          { class: 'legend' },
          h('span', { class: 'key key-completed' }, 'Completed'),
          h('span', { class: 'key key-failed' }, 'Dead'),
          h('span', { class: 'muted' }, `${finished} finished`),
        ),
      ),
      throughputChart(all),
    ),
    h(
      'section',
      { class: 'card flush' },
      queues.length === 0
        ? h('p', { class: 'empty' }, 'No queues yet: submit a job and its queue shows up here.')
        : h(
            'table',
            { class: 'table', id: 'queues-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'Queue'),
                h('th', {}, 'State'),
                STATUSES.map((st) => h('th', { class: 'num' }, st.charAt(0) + st.slice(1).toLowerCase())),
                h('th', { class: 'num', title: 'Age of the oldest job that is due and waiting' }, 'Oldest ready'),
                h('th', {}, `Last ${throughput.minutes} min`),
                h('th', {}),
              ),
            ),
            h(
              'tbody',
              {},
              queues.map((q) => queueRow(q, byQueue.get(q.name) ?? emptyMinutes(throughput.since, throughput.minutes), ctx)),
            ),
          ),
    ),
  );
}
