// The running instances of the service, as each last reported itself: host, version, concurrency, running
// handlers, the queues it works, leader or not, when it started and was last seen. Read-only; refreshed every few
// seconds while shown. An instance that stops cleanly leaves at once; one that died, once its heartbeat lease ran out.

import { api } from './api.js';
import { h, relative } from './dom.js';
import { timestamp } from './time.js';

function instanceRow(i) {
  return h(
    'tr',
    { 'data-instance': i.id },
    h('td', {}, h('code', { class: 'mono' }, i.id)),
    h('td', {}, i.host, h('span', { class: 'muted' }, ` · pid ${i.pid}`)),
    h('td', {}, i.version),
    h('td', {}, i.leader ? h('span', { class: 'pill pill-active', 'data-leader': 'true' }, 'Leader') : h('span', { class: 'muted' }, '—')),
    h('td', { class: 'num', 'data-running': String(i.running) }, i.runsWorkers ? `${i.running} / ${i.concurrency}` : 'API only'),
    h('td', { 'data-queues': i.queues.join(',') }, i.queues.length ? i.queues.join(', ') : h('span', { class: 'muted' }, 'none')),
    h('td', {}, timestamp(i.startedAt)),
    h('td', { 'data-last-seen': i.lastSeen }, relative(i.lastSeen)),
  );
}

/** Renders the instances into `root`. */
export async function renderInstances(root) {
  const { instances } = await api('GET', '/instances');
  root.replaceChildren(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Instances'),
      h('p', { class: 'muted' }, `${instances.length} running instance${instances.length === 1 ? '' : 's'} · refreshed every 5 s`),
    ),
    h(
      'section',
      { class: 'card flush' },
      instances.length === 0
        ? h('p', { class: 'empty' }, 'No instance has reported itself yet.')
        : h(
            'table',
            { class: 'table', id: 'instances-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', {}, 'Instance'),
                h('th', {}, 'Host'),
                h('th', {}, 'Version'),
                h('th', { title: 'The maintenance leader rescues expired leases and prunes old jobs' }, 'Leader'),
                h('th', { class: 'num', title: 'Handlers running / concurrency' }, 'Running'),
                h('th', {}, 'Queues'),
                h('th', {}, 'Started'),
                h('th', {}, 'Last seen'),
              ),
            ),
            h('tbody', {}, instances.map(instanceRow)),
          ),
    ),
  );
}
