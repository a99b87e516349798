// The dashboard's shell: a hash router (#/queues, #/jobs?…, #/jobs/<id>), the API key form, notices,
// and the actions every view shares. Views render from the REST API only; nothing here is privileged.

import { api, apiKey, explain, setApiKey } from './api.js';
import { h } from './dom.js';
import { renderJob } from './job-view.js';
import { renderJobs } from './jobs-view.js';
import { renderQueues } from './queues-view.js';

const REFRESH_MS = 5000;
const view = document.getElementById('view');
const notice = document.getElementById('notice');
let renderSeq = 0;
let refreshTimer;
let noticeTimer;

function showNotice(text, tone = 'good') {
  clearTimeout(noticeTimer);
  notice.className = `notice notice-${tone}`;
  notice.textContent = text;
  notice.hidden = false;
  noticeTimer = setTimeout(() => (notice.hidden = true), tone === 'bad' ? 12000 : 5000);
}

/** What views may do: navigate, and run an action then show its outcome and re-render. */
const ctx = {
  go(hash) {
    if (location.hash === hash) render();
    else location.hash = hash;
  },
  async act(path, success, body) {
    try {
      const res = await api('POST', path, body);
      showNotice(typeof success === 'function' ? success(res) : success, 'good');
    } catch (err) {
      showNotice(explain(err), 'bad');
    }
    await render();
  },
};

function route() {
  const hash = location.hash.replace(/^#/, '') || '/queues';
  const [path, search = ''] = hash.split('?');
  const params = new URLSearchParams(search);
  const job = /^\/jobs\/([0-9a-fA-F-]{36})$/.exec(path);
  if (job) return { name: 'job', draw: (root) => renderJob(root, ctx, job[1]), refresh: true };
  if (path === '/jobs') return { name: 'jobs', draw: (root) => renderJobs(root, ctx, params), refresh: false };
  return { name: 'queues', draw: (root) => renderQueues(root, ctx), refresh: true };
}

/** Draws the current route off-screen, then swaps it in, so a slow answer never shows half a page. */
async function render() {
  const seq = ++renderSeq;
  clearTimeout(refreshTimer);
  const r = route();
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === (r.name === 'job' ? 'jobs' : r.name));
  const next = h('div', { class: 'view-inner', 'data-view': r.name });
  let again = r.refresh;
  try {
    // A view may say there is nothing left to follow (a finished job), so what the user opened stays open.
    again = (await r.draw(next)) !== false && r.refresh;
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
  view.replaceChildren(next);
  document.body.dataset.view = r.name;
  if (again) refreshTimer = setTimeout(render, REFRESH_MS);
}

function keyForm() {
  const form = document.getElementById('key-form');
  const input = document.getElementById('api-key');
  const state = document.getElementById('key-state');
  const show = () => {
    const set = Boolean(apiKey());
    state.textContent = set ? 'Key in use' : 'No key';
    state.className = `key-state ${set ? 'key-set' : ''}`;
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

keyForm();
window.addEventListener('hashchange', render);
render();
