// The dashboard's shell: a hash router (#/queues, #/jobs?…, #/jobs/<id>, #/schedules, #/instances), the API key
// form, notices, and the actions every view shares. Views render from the REST API only; nothing here is privileged.
// Each route of jobs and queues follows the live events that concern it (live.js) and is drawn again soon after one
// arrives; the queues page also refreshes on a timer (its charts count by the minute), and so do the job page and the
// job list while live events are unavailable and the schedules and instances pages, which no job event describes. An
// address no view has says so.

import { keyAccess } from './access.js';
import { api, apiKey, explain, query, setApiKey } from './api.js';
import { h } from './dom.js';
import { renderJob } from './job-view.js';
import { renderJobs } from './jobs-view.js';
import { renderInstances } from './instances-view.js';
import { followLive } from './live.js';
import { renderQueues } from './queues-view.js';
import { renderSchedules } from './schedules-view.js';
import { setTimeZoneMode, timeZoneMode, zoneLabel } from './time.js';

const REFRESH_MS = 5000;
/** How long a redraw waits (redrawSoon): at most one per this long while live events keep coming. */
const REDRAW_DELAY_MS = 300;
const view = document.getElementById('view');
const notice = document.getElementById('notice');
let renderSeq = 0;
/** The address (`/jobs?queue=…`, from the location's hash) the view on screen was drawn for. */
let shownAddress = null;
let refreshTimer;
let noticeTimer;
let live = null;
let liveConnected = false;
let pendingRedraw = null;

/** A message at the bottom of the page: 'good', 'warn' (done in part) or 'bad'. */
function showNotice(text, tone = 'good') {
  clearTimeout(noticeTimer);
  notice.className = `notice notice-${tone}`;
  notice.textContent = text;
  notice.hidden = false;
  noticeTimer = setTimeout(() => (notice.hidden = true), tone === 'good' ? 5000 : 12000);
}

/**
 * What views may do: navigate, and run an action then show its outcome and re-render. `mayAct` says whether
 * the key may run the actions (set before each render), so a view offers no button its key may not press.
 */
const ctx = {
  mayAct: false,
  notify: showNotice,
  go(hash) {
    if (location.hash === hash) render();
    else location.hash = hash;
  },
  act(path, success, body) {
    return ctx.perform(() => api('POST', path, body), success);
  },
  /** Runs `work` (the API calls of one action), then shows its outcome and re-renders. */
  async perform(work, success) {
    try {
      const res = await work();
      showNotice(typeof success === 'function' ? success(res) : success, 'good');
    } catch (err) {
      showNotice(explain(err), 'bad');
    }
    await render();
  },
};

/** The address the location's hash names; the queues overview when it names none. */
function addressed() {
  return location.hash.replace(/^#/, '') || '/queues';
}

/** `text` with its %-escapes decoded; as it is when they are malformed. */
function decodedOrAsIs(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An address no view has: the page says so, rather than showing another view in its place. */
function renderNotFound(root, address) {
  root.replaceChildren(
    h(
      'div',
      { class: 'card error-card', 'data-error': 'not-found' },
      h('h2', {}, 'No such page'),
      h('p', {}, `Nothing is at #${address}. `, h('a', { href: '#/queues' }, 'Go to the queues')),
    ),
  );
  return false;
}

function route(address) {
  const [path, search = ''] = address.split('?');
  const params = new URLSearchParams(search);
  const job = /^\/jobs\/([^/]+)$/.exec(path);
  if (job) {
    // Any id is asked of the API, which says what is wrong with one that is not a job's (a 400 or a 404).
    const id = decodedOrAsIs(job[1]);
    const live = /^[0-9a-fA-F-]{36}$/.test(id) ? `/jobs/${id}/events` : undefined;
    return { name: 'job', draw: (root) => renderJob(root, ctx, id), refresh: true, live };
  }
  if (path === '/jobs') {
    // Not by status: a job leaving the listed status must still redraw the list.
    const live = `/events${query({ queue: params.get('queue'), type: params.get('type') })}`;
    return { name: 'jobs', draw: (root) => renderJobs(root, ctx, params), refresh: false, live };
  }
  if (path === '/schedules') return { name: 'schedules', draw: (root) => renderSchedules(root, ctx), refresh: true };
  if (path === '/instances') return { name: 'instances', draw: (root) => renderInstances(root), refresh: true };
  if (path === '/queues') return { name: 'queues', draw: (root) => renderQueues(root, ctx), refresh: true, live: '/events' };
  return { name: 'not-found', draw: (root) => renderNotFound(root, address), refresh: false };
}

/**
 * Draws the view again shortly, once: after a live event, on the refresh timer, or when the live stream drops. Not while
 * another address is being drawn: that draw reads fresh answers anyway, and starting it again at every event would
 * keep a slow one from ever landing. Not under the user's fingers either: a redraw would throw away what they are
 * typing in a filter, or the jobs they have chosen for an action; it waits until they are done.
 */
function redrawSoon() {
  pendingRedraw ??= setTimeout(function redraw() {
    const typing = view.contains(document.activeElement) && document.activeElement.matches('input, select, textarea');
    const choosing = view.querySelector('input[data-select]:checked') !== null;
    if (addressed() !== shownAddress || typing || choosing) {
      pendingRedraw = setTimeout(redraw, REDRAW_DELAY_MS);
      return;
    }
    pendingRedraw = null;
    render();
  }, REDRAW_DELAY_MS);
}

/**
 * Follows the live events of route `r` (the same stream while the route stays), redrawing soon after each; a route
 * without a stream (schedules, instances) stops the one before.
 */
function followRoute(r) {
  const key = r.live ? `${r.live}|${apiKey()}` : null;
  if (live?.key === key || (!key && !live)) return;
  live?.stop();
  live = null;
  liveConnected = false;
  if (!key) {
    document.getElementById('live-state').hidden = true;
    document.body.dataset.live = 'off';
    return;
  }
  const stream = followLive(r.live, {
    onEvent: redrawSoon,
    onState: (connected) => {
      if (live !== handle) return;
      // A stream that drops leaves the view unfollowed: draw it now (which shows an API that is gone) and, until the
      // stream is back, on the refresh timer.
      if (liveConnected && !connected) redrawSoon();
      liveConnected = connected;
      const state = document.getElementById('live-state');
      state.hidden = !connected;
      document.body.dataset.live = connected ? 'on' : 'off';
    },
  });
  const handle = { key, stop: () => stream.stop() };
  live = handle;
}

/** What the top bar says about the key, by its access (access.js). */
const KEY_STATES = {
  admin: { text: 'Key in use · admin', tone: 'good', hint: 'This key may read and act: cancel, retry, pause, resume, trigger.' },
  'read-only': {
    text: 'Key in use · read-only',
    tone: 'good',
    hint: 'A producer or worker key: it reads jobs, queues, schedules and instances; cancel, retry, pause, resume and trigger need an admin key.',
  },
  'wrong-key': { text: 'Wrong key', tone: 'bad', hint: 'The service does not know this key.' },
  unknown: {
    text: 'Key in use',
    tone: 'good',
    hint: 'What this key may do could not be checked; it is checked again on the next refresh.',
  },
};

function showKeyState(access) {
  const state = document.getElementById('key-state');
  const shown = apiKey()
    ? KEY_STATES[access]
    : access === 'admin'
      ? { text: 'No key needed', tone: 'good', hint: 'The API runs without keys: anyone who reaches it may act.' }
      : { text: 'No key', tone: 'none', hint: '' };
  state.textContent = shown.text;
  state.title = shown.hint;
  state.className = `key-state key-${shown.tone}`;
  state.dataset.access = access;
}

/**
 * Marks the view on screen as being left for another address (`leaving`), or gives it back to the user. A view
 * being left stays on screen but takes no clicks, keys or focus (`inert`), so a link or button of the page the user
 * left cannot act in place of the page they asked for; `data-leaving` lets the styles dim it.
 */
function markLeaving(leaving) {
  view.inert = leaving;
  if (leaving) view.dataset.leaving = '';
  else delete view.dataset.leaving;
}

/**
 * What identifies a control across redraws of one view: its kind, its action, link or field name, and the job, queue
 * or schedule of the row it sits in (its label only when nothing else names it: a row's text changes with its job).
 */
function controlKey(el) {
  const row = el.closest('[data-job], [data-queue], [data-schedule]');
  const named = el.getAttribute('data-action') ?? el.getAttribute('href') ?? el.getAttribute('name');
  const owner = row ? (row.dataset.job ?? row.dataset.queue ?? row.dataset.schedule) : '';
  return [el.tagName, named ?? (el === row ? '' : el.textContent.trim()), owner].join('|');
}

/** Puts the keyboard focus back on the control of the new view that stands where `key`'s did, if there is one. */
function refocus(key) {
  const controls = view.querySelectorAll('a[href], button, input, select, textarea, [tabindex]');
  for (const el of controls) {
    if (controlKey(el) === key) return el.focus({ preventScroll: true });
  }
}

/**
 * Draws the current route off-screen, then swaps it in, so a slow answer never shows half a page. Until the swap,
 * the view of another address is marked as leaving; a redraw of the same address leaves the view as it is.
 */
async function render() {
  const seq = ++renderSeq;
  clearTimeout(refreshTimer);
  const address = addressed();
  markLeaving(address !== shownAddress);
  const access = await keyAccess();
  if (seq !== renderSeq) return;
  showKeyState(access);
  ctx.mayAct = access === 'admin';
  const r = route(address);
  followRoute(r);
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === (r.name === 'job' ? 'jobs' : r.name));
  const next = h('div', { class: 'view-inner', 'data-view': r.name });
  // A view that follows live events and has no timer of its own (the job list) is polled while the stream is down.
  const polled = r.refresh || (r.live !== undefined && !liveConnected);
  let again = polled;
  try {
    // A view may say there is nothing left to follow (a finished job), so what the user opened stays open.
    again = (await r.draw(next)) !== false && polled;
  } catch (err) {
    next.replaceChildren(
      h(
        'div',
        { class: 'card error-card', 'data-error': String(err.status ?? '') },
        h('h2', {}, 'Could not load this page'),
        h('p', {}, explain(err)),
      ),
    );
  }
  if (seq !== renderSeq) return;
  // A redraw of the same view keeps the keyboard where it was; the swap would drop it to the page's start.
  const focused = address === shownAddress && view.contains(document.activeElement) ? controlKey(document.activeElement) : null;
  view.replaceChildren(next);
  if (focused) refocus(focused);
  shownAddress = address;
  markLeaving(false);
  document.body.dataset.view = r.name;
  // A job page that follows its live events needs no timer.
  if (again && !(r.name === 'job' && liveConnected)) refreshTimer = setTimeout(redrawSoon, REFRESH_MS);
}

function keyForm() {
  const form = document.getElementById('key-form');
  const input = document.getElementById('api-key');
  const state = document.getElementById('key-state');
  const show = () => {
    const set = Boolean(apiKey());
    // Until render() has asked what the key may do.
    state.textContent = set ? 'Checking key…' : 'No key';
    state.className = 'key-state';
    delete state.dataset.access;
    input.value = '';
    input.placeholder = set ? '•••••••• (paste to replace)' : 'Paste a key (this tab only)';
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!input.value.trim()) return;
    setApiKey(input.value.trim());
    show();
    render();
  });
  document.getElementById('key-clear').addEventListener('click', () => {
    setApiKey('');
    show();
    render();
  });
  show();
}

/** The time zone switch: every view draws its times in the zone chosen here (time.js). */
function zoneSwitch() {
  const label = document.getElementById('zone-label');
  const buttons = document.querySelectorAll('[data-zone]');
  const show = () => {
    label.textContent = zoneLabel();
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.zone === timeZoneMode()));
  };
  for (const b of buttons) {
    b.addEventListener('click', () => {
      setTimeZoneMode(b.dataset.zone);
      show();
      render();
    });
  }
  show();
}

keyForm();
zoneSwitch();
window.addEventListener('hashchange', render);
render();
