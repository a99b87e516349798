// One job: its facts, payload and result, the lifecycle timeline (created, each failed attempt with its
// time, worker and error, the latest start, the end) and the error history; retry or cancel; copy the id.

import { api } from './api.js';
import { badge, h, json, relative } from './dom.js';
import { preciseTime, timestamp } from './time.js';
import { copyIdButton } from './job-id.js';
import { jobActions } from './job-actions.js';

// One label per JobErrorKind (libs/conveyor/src/job/job-error-kind.ts); an unknown kind shows as itself.
const KIND_LABELS = {
  failed: 'failed',
  timeout: 'timed out',
  permanent: 'failed permanently',
  'retry-later': 'asked to run later',
  'snooze-cap': 'asked to run later too often',
  cancelled: 'cancelled the job',
  'handed-back': 'was handed back at shutdown',
  'lease-expired': 'lost its lease',
};
/** Kinds that did not use up an attempt: shown as a warning, not a failure. */
const NOT_FAILURES = new Set(['retry-later', 'handed-back']);
/**
 * The most entries of the error history the page draws, the latest: the history has no bound (every retry-later and
 * hand-back adds one), and the page is drawn again at every live event of a running job. The API answers all of them.
 */
const SHOWN_ERRORS = 100;

/** The latest entries of the error history, those the page draws (at most SHOWN_ERRORS). */
function shownErrors(job) {
  return job.errors.slice(-SHOWN_ERRORS);
}

/**
 * The most characters of a payload or result the page draws: a body of megabytes (the API's body limit is configurable,
 * an in-process enqueue has none) drawn whole holds the page still for seconds at every redraw.
 */
const SHOWN_JSON_CHARS = 100_000;

/** A payload or result as pretty JSON in a <pre> (id `id`), cut at SHOWN_JSON_CHARS with a note saying so. */
function jsonBlock(id, value, job) {
  const text = json(value);
  if (text.length <= SHOWN_JSON_CHARS) return h('pre', { class: 'code', id }, text);
  return [
    h('pre', { class: 'code', id }, `${text.slice(0, SHOWN_JSON_CHARS)}…`),
    h(
      'p',
      { class: 'muted', id: `${id}-shown` },
      `The first ${SHOWN_JSON_CHARS} of ${text.length} characters; GET /jobs/${job.id} answers it whole.`,
    ),
  ];
}

/** Whether the job ended (cancelled) before it was due: its run-at time never came for it. */
function endedBeforeDue(job) {
  return job.finishedAt !== null && new Date(job.finishedAt).getTime() < new Date(job.runAt).getTime();
}

/** The lifecycle as dated events, oldest first. */
function timeline(job) {
  const events = [
    { at: job.createdAt, tone: 'neutral', title: 'Created', text: ['in queue ', h('bdi', {}, job.queue), `, priority ${job.priority}`] },
  ];
  const delayed = new Date(job.runAt).getTime() - new Date(job.createdAt).getTime() > 1000;
  if (delayed && !job.errors.length && !endedBeforeDue(job)) {
    events.push({
      at: job.runAt,
      tone: 'neutral',
      title: 'Due',
      text: job.status === 'SCHEDULED' ? `scheduled, runs ${relative(job.runAt)}` : 'scheduled time',
    });
  }
  for (const e of shownErrors(job)) {
    const tone = NOT_FAILURES.has(e.kind) ? 'warn' : 'bad';
    events.push({ at: e.at, tone, title: `Attempt ${e.attempt} ${KIND_LABELS[e.kind] ?? e.kind}`, text: e.error, worker: e.worker });
  }
  if (job.startedAt) {
    events.push({ at: job.startedAt, tone: 'info', title: `Attempt ${job.attempts} started`, worker: job.lockedBy ?? undefined });
  }
  if (job.status === 'RETRYING') events.push({ at: job.runAt, tone: 'warn', title: 'Next attempt', text: relative(job.runAt) });
  if (job.finishedAt) {
    const tone = job.status === 'COMPLETED' ? 'good' : job.status === 'DEAD' ? 'bad' : 'neutral';
    events.push({
      at: job.finishedAt,
      tone,
      title: job.status.charAt(0) + job.status.slice(1).toLowerCase(),
      text: job.status === 'DEAD' ? job.lastError : undefined,
    });
  }
  return events.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime());
}

function fact(label, value, mono = false) {
  return [h('dt', {}, label), h('dd', { class: mono ? 'mono' : '', 'data-fact': label }, value ?? '—')];
}

const FINISHED = ['COMPLETED', 'DEAD', 'CANCELLED'];

/** What the attempt last reported of its progress: a bar for the percentage, the handler's own data beside it. */
function progressView(progress) {
  if (!progress) return null;
  const { percent, data } = progress;
  return h(
    'div',
    { class: 'progress', id: 'progress' },
    percent === null
      ? null
      : h(
          'div',
          { class: 'progress-line' },
          h('progress', { max: '100', value: String(percent), 'aria-label': 'Progress' }),
          h('span', { class: 'num', id: 'progress-percent' }, `${Math.round(percent * 10) / 10}%`),
        ),
    data === null ? null : h('pre', { class: 'code small', id: 'progress-data' }, json(data)),
  );
}

/** Renders one job into `root`; answers false once the job is finished (nothing more to refresh). */
export async function renderJob(root, ctx, id) {
  const job = await api('GET', `/jobs/${encodeURIComponent(id)}`);
  const duration = job.startedAt && job.finishedAt ? `${((new Date(job.finishedAt) - new Date(job.startedAt)) / 1000).toFixed(2)} s` : null;

  root.replaceChildren(
    h('a', { class: 'back', href: '#/jobs' }, '← All jobs'),
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, h('span', { class: 'job-type' }, job.type), badge(job.status)),
        h('p', { class: 'muted mono job-id-line' }, h('span', { id: 'job-id' }, job.id), copyIdButton(job.id)),
      ),
      h('div', { class: 'head-actions' }, jobActions(job, ctx, { small: false })),
    ),
    h(
      'div',
      { class: 'grid-2' },
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'Details'),
        h(
          'dl',
          { class: 'facts' },
          fact('Queue', h('a', { href: `#/jobs?queue=${encodeURIComponent(job.queue)}` }, job.queue)),
          job.progress ? fact('Progress', progressView(job.progress)) : null,
          fact('Attempts', `${job.attempts} of ${job.maxAttempts}${job.snoozes ? ` (${job.snoozes} snoozed)` : ''}`),
          fact('Priority', String(job.priority)),
          fact('Run at', endedBeforeDue(job) ? `${timestamp(job.runAt)} (${job.status.toLowerCase()} before then)` : timestamp(job.runAt)),
          fact('Created', timestamp(job.createdAt)),
          fact('Started', timestamp(job.startedAt)),
          fact('Finished', job.finishedAt ? `${timestamp(job.finishedAt)}${duration ? ` (ran ${duration})` : ''}` : '—'),
          fact('Idempotency key', job.idempotencyKey, true),
          fact('Unique key', job.uniqueKey, true),
          job.status === 'RUNNING' ? fact('Held by', [h('bdi', {}, job.lockedBy), ` until ${timestamp(job.lockedUntil)}`], true) : null,
        ),
      ),
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'Timeline'),
        h(
          'ol',
          { class: 'timeline', id: 'timeline' },
          timeline(job).map((e) =>
            h(
              'li',
              { class: `tl tl-${e.tone}` },
              h(
                'div',
                { class: 'tl-head' },
                h('strong', {}, e.title),
                h('time', { datetime: e.at, title: timestamp(e.at) }, preciseTime(e.at)),
              ),
              e.text ? h('div', { class: 'tl-text' }, e.text) : null,
              e.worker ? h('div', { class: 'tl-worker mono' }, 'worker ', h('bdi', {}, e.worker)) : null,
            ),
          ),
        ),
      ),
    ),
    h(
      'div',
      { class: 'grid-2' },
      h('section', { class: 'card' }, h('h2', {}, 'Payload'), jsonBlock('payload', job.payload, job)),
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'Result'),
        job.result === null ? h('p', { class: 'muted' }, 'No result yet.') : jsonBlock('result', job.result, job),
      ),
    ),
    h(
      'section',
      { class: 'card flush' },
      h('h2', { class: 'pad' }, `Errors (${job.errors.length})`),
      job.errors.length > SHOWN_ERRORS
        ? h(
            'p',
            { class: 'pad muted', id: 'errors-shown' },
            `The latest ${SHOWN_ERRORS} of ${job.errors.length}; GET /jobs/${job.id} answers them all.`,
          )
        : null,
      job.errors.length === 0
        ? h('p', { class: 'empty' }, 'No attempt has failed.')
        : h(
            'table',
            { class: 'table', id: 'errors-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Attempt', 'When', 'Worker', 'Kind', 'Error'].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              shownErrors(job).map((e) =>
                h(
                  'tr',
                  { 'data-attempt': e.attempt },
                  h('td', { class: 'num' }, String(e.attempt)),
                  h('td', { class: 'nowrap' }, timestamp(e.at)),
                  h('td', { class: 'mono' }, e.worker ?? '—'),
                  h('td', {}, KIND_LABELS[e.kind] ?? e.kind),
                  h('td', {}, e.stack ? h('details', {}, h('summary', {}, e.error), h('pre', { class: 'code small' }, e.stack)) : e.error),
                ),
              ),
            ),
          ),
    ),
  );
  return !FINISHED.includes(job.status);
}
