// Job ids on the page. Ids are UUIDv7: their first 12 hex digits are the millisecond the job was made, so
// jobs submitted together share their first 8 characters and only the end tells them apart. The short form
// keeps both ends, `01a212f5…c93e4b7a`: the start says roughly when, the end which one (62 random bits).
// The full id is the element's title, and one click copies it.

import { h, s } from './dom.js';

const HEAD = 8;
const TAIL = 8;
const CONFIRM_MS = 2000;

/** `01a212f5…c93e4b7a`: the form notices use. */
export function shortJobId(id) {
  return `${id.slice(0, HEAD)}…${id.slice(-TAIL)}`;
}

/** The short form as an element, its distinguishing end set apart; the full id is its title. */
export function jobIdText(id) {
  return h(
    'span',
    { class: 'job-id', title: id },
    h('span', { class: 'job-id-head' }, id.slice(0, HEAD)),
    '…',
    h('span', { class: 'job-id-tail' }, id.slice(-TAIL)),
  );
}

/** Puts `text` on the clipboard; answers whether it worked. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API outside a secure context (plain http to another host): a selected textarea still copies.
    const area = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true' }, text);
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

const copyIcon = () =>
  s(
    'svg',
    { viewBox: '0 0 16 16', width: 14, height: 14, 'aria-hidden': 'true', class: 'icon' },
    s('rect', { x: 5, y: 5, width: 9, height: 9, rx: 1.5 }),
    s('path', { d: 'M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5' }),
  );

/** The id copied last and until when to say so: a view that refreshes meanwhile keeps saying it. */
let copied = { id: null, until: 0 };

/** A button that copies the full id, and says "Copied" (or that it could not) for a moment. */
export function copyIdButton(id) {
  const label = h('span', { class: 'copy-label', 'aria-live': 'polite' });
  const button = h(
    'button',
    { type: 'button', class: 'btn-copy', 'data-action': 'copy-id', title: `Copy the full id ${id}`, 'aria-label': 'Copy the full job id' },
    copyIcon(),
    label,
  );
  let timer;
  const confirm = (text, ms) => {
    label.textContent = text;
    button.classList.toggle('copied', text === 'Copied');
    clearTimeout(timer);
    timer = setTimeout(() => {
      label.textContent = '';
      button.classList.remove('copied');
    }, ms);
  };
  if (copied.id === id && copied.until > Date.now()) confirm('Copied', copied.until - Date.now());
  button.addEventListener('click', async (e) => {
    // Inside a clickable row: copying is not opening the job.
    e.stopPropagation();
    const ok = await copyText(id);
    if (ok) copied = { id, until: Date.now() + CONFIRM_MS };
    confirm(ok ? 'Copied' : 'Copy failed', CONFIRM_MS);
  });
  button.addEventListener('keydown', (e) => e.stopPropagation());
  return button;
}
