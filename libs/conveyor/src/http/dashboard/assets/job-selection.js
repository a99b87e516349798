// Choosing jobs on the list page and acting on them together: a checkbox per row, one in the header for the whole
// page, and an action bar (cancel, retry, delete) that sends the chosen ids to POST /jobs/bulk/<action>. The answer
// reports each job; the notice says how many were done and why the others were refused.

import { api, explain } from './api.js';
import { h } from './dom.js';

/** Most ids one bulk request carries (the API's MAX_BULK_IDS). */
const MAX_PER_REQUEST = 500;

const ACTIONS = [
  { action: 'cancel', label: 'Cancel', tone: 'btn-danger', done: 'cancelled', ask: 'Cancel' },
  { action: 'retry', label: 'Retry', tone: 'btn-primary', done: 'put back to PENDING', ask: 'Retry' },
  { action: 'delete', label: 'Delete', tone: 'btn-danger', done: 'deleted', ask: 'Delete' },
];

/**
 * What the confirmation asks before a bulk action on `jobs`: cancelling running jobs says what the single Cancel of a
 * running job says, since their handlers are stopped and their outcomes thrown away.
 */
export function bulkQuestion(a, jobs) {
  const question = `${a.ask} ${jobs.length} job${jobs.length === 1 ? '' : 's'}?`;
  const running = jobs.filter((j) => j.status === 'RUNNING').length;
  if (a.action !== 'cancel' || running === 0) return question;
  const which = running === 1 ? (jobs.length === 1 ? 'It is' : '1 of them is') : `${running} of them are`;
  return `${question} ${which} running: the handler${running === 1 ? ' is' : 's are'} told to stop and the outcome${running === 1 ? ' is' : 's are'} not stored.`;
}

/** One sentence about a bulk answer: how many were done, and the first reasons for refusals. */
export function bulkSummary(results, done) {
  const ok = results.filter((r) => r.ok).length;
  const refused = results.filter((r) => !r.ok);
  const head = `${ok} job${ok === 1 ? '' : 's'} ${done}.`;
  if (refused.length === 0) return head;
  const reasons = [...new Set(refused.map((r) => r.message))].slice(0, 2).join(' ');
  return `${head} ${refused.length} refused: ${reasons}`;
}

/**
 * The selection of one rendering of the list: `checkbox(job)` for a row, `headerBox()` for the header, `bar()` for
 * the action bar (hidden while nothing is chosen).
 */
export function jobSelection(jobs, ctx) {
  const chosen = new Set();
  const boxes = new Map();
  const count = h('strong', { 'data-selected-count': '' }, '0');
  const bar = h(
    'div',
    { class: 'bulk-bar', id: 'bulk-bar', hidden: true, role: 'region', 'aria-label': 'Actions on the chosen jobs' },
    h('span', {}, count, ' chosen'),
    ACTIONS.map((a) => h('button', { class: `btn btn-small ${a.tone}`, 'data-bulk': a.action, onclick: () => run(a) }, a.label)),
    h('button', { class: 'btn btn-small btn-ghost', 'data-bulk': 'clear', onclick: () => setAll(false) }, 'Clear selection'),
  );
  const header = h('input', { type: 'checkbox', 'aria-label': 'Choose every job on this page', 'data-select-all': '' });
  header.addEventListener('change', () => setAll(header.checked));

  function changed() {
    count.textContent = String(chosen.size);
    bar.hidden = chosen.size === 0;
    header.checked = chosen.size > 0 && chosen.size === jobs.length;
    header.indeterminate = chosen.size > 0 && chosen.size < jobs.length;
  }

  function setAll(on) {
    for (const [id, box] of boxes) {
      box.checked = on;
      if (on) chosen.add(id);
      else chosen.delete(id);
    }
    changed();
  }

  async function run(a) {
    const ids = [...chosen];
    if (
      !window.confirm(
        bulkQuestion(
          a,
          jobs.filter((j) => chosen.has(j.id)),
        ),
      )
    )
      return;
    const results = [];
    try {
      for (let i = 0; i < ids.length; i += MAX_PER_REQUEST) {
        results.push(...(await api('POST', `/jobs/bulk/${a.action}`, { ids: ids.slice(i, i + MAX_PER_REQUEST) })).results);
      }
      ctx.notify(bulkSummary(results, a.done), results.every((r) => r.ok) ? 'good' : 'warn');
    } catch (err) {
      ctx.notify(explain(err), 'bad');
    }
    ctx.go(location.hash);
  }

  return {
    checkbox(job) {
      const box = h('input', { type: 'checkbox', 'aria-label': `Choose job ${job.id}`, 'data-select': job.id });
      box.addEventListener('click', (e) => e.stopPropagation());
      box.addEventListener('change', () => {
        if (box.checked) chosen.add(job.id);
        else chosen.delete(job.id);
        changed();
      });
      boxes.set(job.id, box);
      return box;
    },
    headerBox: () => (ctx.mayAct ? header : null),
    bar: () => (ctx.mayAct ? bar : null),
  };
}
