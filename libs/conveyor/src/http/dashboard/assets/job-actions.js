// The buttons for one job, by what its status allows: retry a DEAD or CANCELLED job, run a waiting one now, cancel a
// waiting or running one. Offered only to a key that may press them (ctx.mayAct, from access.js).

import { h } from './dom.js';
import { shortJobId } from './job-id.js';

const WAITING = ['SCHEDULED', 'PENDING', 'RETRYING'];

/** Whether "Run now" changes anything: a SCHEDULED or RETRYING job, or a PENDING one not due yet. */
function mayRunNow(job) {
  if (job.status === 'SCHEDULED' || job.status === 'RETRYING') return true;
  return job.status === 'PENDING' && new Date(job.runAt).getTime() > Date.now();
}

/** Retry, run-now and cancel buttons for what a job's status allows, for a key that may press them. */
export function jobActions(job, ctx, { small = true } = {}) {
  if (!ctx.mayAct) return [];
  const cls = small ? 'btn btn-small' : 'btn';
  const button = (action, tone, label, path, success, confirmText) =>
    h(
      'button',
      {
        class: `${cls} ${tone}`,
        'data-action': action,
        onclick: (e) => {
          e.stopPropagation();
          if (confirmText && !window.confirm(confirmText)) return;
          ctx.act(path, success);
        },
      },
      label,
    );
  const id = shortJobId(job.id);
  const buttons = [];
  if (job.status === 'DEAD' || job.status === 'CANCELLED') {
    buttons.push(button('retry', 'btn-primary', 'Retry', `/jobs/${job.id}/retry`, `Job ${id} is PENDING again.`));
  }
  if (mayRunNow(job)) {
    buttons.push(button('run-now', 'btn-primary', 'Run now', `/jobs/${job.id}/run-now`, `Job ${id} is due now.`));
  }
  if (WAITING.includes(job.status)) {
    buttons.push(button('cancel', 'btn-danger', 'Cancel', `/jobs/${job.id}/cancel`, `Job ${id} cancelled.`));
  }
  if (job.status === 'RUNNING') {
    buttons.push(
      button(
        'cancel',
        'btn-danger',
        'Cancel',
        `/jobs/${job.id}/cancel`,
        `Job ${id} cancelled; its handler was told to stop.`,
        `Cancel job ${id} while it runs? Its handler is told to stop and its outcome is not stored.`,
      ),
    );
  }
  return buttons;
}
