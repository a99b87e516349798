// The cron schedules: per schedule its expression, job type and queue, the last and next tick, paused or not —
// with pause, resume and "trigger now" for an admin key. Refreshed every few seconds while shown.

import { api, query } from './api.js';
import { h, relative } from './dom.js';
import { shortJobId } from './job-id.js';
import { timestamp } from './time.js';

/** A tick as its time and how far off it is; a dash when there is none. */
function tick(iso, none) {
  if (!iso) return h('span', { class: 'muted' }, none);
  return [h('span', {}, timestamp(iso)), ' ', h('span', { class: 'muted' }, relative(iso))];
}

function actions(s, ctx) {
  if (!ctx.mayAct) return null;
  const path = (action) => `/schedules/${encodeURIComponent(s.name)}/${action}`;
  const toggle = s.paused
    ? h(
        'button',
        {
          class: 'btn btn-small btn-primary',
          'data-action': 'resume',
          onclick: () => ctx.act(path('resume'), `Schedule ${s.name} resumed: its next tick is the first after now.`),
        },
        'Resume',
      )
    : h(
        'button',
        { class: 'btn btn-small', 'data-action': 'pause', onclick: () => ctx.act(path('pause'), `Schedule ${s.name} paused.`) },
        'Pause',
      );
  const trigger = h(
    'button',
    {
      class: 'btn btn-small',
      'data-action': 'trigger',
      title: 'Enqueue one job for this schedule now; its regular ticks go on as before.',
      onclick: () => ctx.act(path('trigger'), (job) => `Job ${shortJobId(job.id)} enqueued for schedule ${s.name}.`),
    },
    'Trigger now',
  );
  return [trigger, toggle];
}

function scheduleRow(s, ctx) {
  return h(
    'tr',
    { 'data-schedule': s.name },
    h(
      'td',
      {},
      h('a', { class: 'queue-name ident', href: `#/jobs${query({ key: `cron:${s.name}:` })}`, title: 'Jobs of this schedule' }, s.name),
    ),
    h(
      'td',
      {},
      h('code', { class: 'mono', 'data-cron': '' }, s.cron),
      s.timezone === 'UTC' ? null : h('span', { class: 'muted' }, ` ${s.timezone}`),
    ),
    h(
      'td',
      {},
      h(
        'span',
        { class: 'ident' },
        s.type,
        h('span', { class: 'muted' }, ' in '),
        h('a', { href: `#/jobs${query({ queue: s.queue })}` }, s.queue),
      ),
    ),
    h(
      'td',
      {},
      h(
        'span',
        {
          class: `pill ${s.paused ? 'pill-paused' : 'pill-active'}`,
          'data-paused': String(s.paused),
          title: s.paused ? `Paused ${timestamp(s.pausedAt)}` : '',
        },
        s.paused ? 'Paused' : 'Active',
      ),
    ),
    h('td', { 'data-last-tick': s.lastTick ?? '' }, tick(s.lastTick, 'none yet')),
    h('td', { 'data-next-tick': s.nextTick ?? '' }, tick(s.nextTick, s.paused ? 'paused' : '—')),
    h('td', { class: 'actions' }, actions(s, ctx)),
  );
}

/** Renders the schedules into `root`. */
export async function renderSchedules(root, ctx) {
  const { schedules } = await api('GET', '/schedules');
  const paused = schedules.filter((s) => s.paused).length;
  root.replaceChildren(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Schedules'),
      h(
        'p',
        { class: 'muted' },
        `${schedules.length} schedule${schedules.length === 1 ? '' : 's'}${paused ? `, ${paused} paused` : ''} · refreshed every 5 s`,
      ),
    ),
    h(
      'section',
      { class: 'card flush' },
      schedules.length === 0
        ? h('p', { class: 'empty' }, 'No cron schedules: declare them in the engine options or on a @JobHandler.')
        : h(
            'table',
            { class: 'table', id: 'schedules-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'Schedule'),
                h('th', {}, 'Cron'),
                h('th', {}, 'Job type and queue'),
                h('th', {}, 'State'),
                h('th', { title: 'The newest tick a job was enqueued for' }, 'Last tick'),
                h('th', { title: 'A paused schedule has none; resumed, it starts from the first tick after now' }, 'Next tick'),
                h('th', {}),
              ),
            ),
            h(
              'tbody',
              {},
              schedules.map((s) => scheduleRow(s, ctx)),
            ),
          ),
    ),
  );
}
