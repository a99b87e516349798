// The job list's search form: queue, type (whatever the case), status, text in the idempotency key, a JSON object
// the payload contains, and a creation time range read in the zone in use. The search lives in the URL hash
// (#/jobs?type=…&payload=…&createdFrom=…), times as UTC ISO, so a search can be shared whatever the reader's zone.

import { query } from './api.js';
import { h } from './dom.js';
import { fromInputValue, toInputValue, zoneName } from './time.js';

const STATUSES = ['SCHEDULED', 'PENDING', 'RUNNING', 'RETRYING', 'COMPLETED', 'DEAD', 'CANCELLED'];

/** Every search parameter the hash may hold, in the order they are written. */
export const SEARCH_FIELDS = ['queue', 'type', 'status', 'key', 'payload', 'createdFrom', 'createdTo'];

/** Why a payload filter is not a JSON object, or null when it is one (or empty). */
export function payloadProblem(text) {
  if (!text) return null;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'Must be a JSON object, like {"customerId": 42}.';
  } catch {
    return 'Not valid JSON: write an object, like {"customerId": 42}.';
  }
}

/** The search form for the hash's parameters; submitting it navigates to the new search. */
export function searchForm(params, ctx) {
  const field = (label, input, extra = {}) => h('label', { class: 'field', ...extra }, h('span', {}, label), input);
  const text = (name, placeholder) => h('input', { name, value: params.get(name) ?? '', placeholder, spellcheck: 'false' });
  const time = (name) => h('input', { name, type: 'datetime-local', step: '60', value: toInputValue(params.get(name)) });
  const status = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    STATUSES.map((st) => h('option', { value: st, selected: params.get('status') === st }, st)),
  );
  const payload = h('input', {
    name: 'payload',
    class: 'mono',
    value: params.get('payload') ?? '',
    placeholder: '{"customerId": 42}',
    spellcheck: 'false',
    'aria-describedby': 'payload-problem',
  });
  const problem = h('span', { class: 'field-problem', id: 'payload-problem', role: 'alert' });
  const form = h(
    'form',
    { class: 'filters search', id: 'job-filters', novalidate: true },
    field('Queue', text('queue', 'any queue')),
    field('Type', text('type', 'any type, any case')),
    field('Status', status),
    field('Idempotency key contains', text('key', 'text in the key')),
    field('Payload contains (JSON)', [payload, problem], { class: 'field field-wide' }),
    field(`Created from (${zoneName()})`, time('createdFrom')),
    field(`Created to (${zoneName()})`, time('createdTo')),
    h(
      'div',
      { class: 'filter-buttons' },
      h('button', { type: 'submit', class: 'btn btn-primary' }, 'Search'),
      h('a', { class: 'btn btn-ghost', href: '#/jobs' }, 'Clear'),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const value = (f) => String(data.get(f) ?? '').trim();
    const bad = payloadProblem(value('payload'));
    problem.textContent = bad ?? '';
    payload.classList.toggle('invalid', Boolean(bad));
    if (bad) return payload.focus();
    const search = Object.fromEntries(SEARCH_FIELDS.map((f) => [f, value(f)]));
    search.createdFrom = fromInputValue(search.createdFrom);
    // A time picked to the minute ends with that minute.
    const to = fromInputValue(search.createdTo);
    search.createdTo = to && new Date(new Date(to).getTime() + 59_999).toISOString();
    ctx.go(`#/jobs${query(search)}`);
  });
  return form;
}
