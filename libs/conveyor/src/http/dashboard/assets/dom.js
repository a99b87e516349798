// Small DOM helpers. Everything the API returns goes in as text (textContent, attributes), never as
// HTML, so a job payload or error message cannot inject markup into the page. API text that shares a line with the
// page's own words sits in a <bdi>, so direction controls in it (U+202E) cannot reorder those words.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h('a', { href: '#' }, 'text', otherNode). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** A status badge. */
export function badge(status) {
  return h('span', { class: `badge badge-${status.toLowerCase()}`, 'data-status-badge': status }, status);
}

/** "3 s", "4 min", "2 h 5 min", "3 d". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const sec = Math.max(0, Math.round(seconds));
  if (sec < 60) return `${sec} s`;
  if (sec < 3600) return `${Math.floor(sec / 60)} min`;
  if (sec < 86400) {
    const m = Math.floor((sec % 3600) / 60);
    return `${Math.floor(sec / 3600)} h${m ? ` ${m} min` : ''}`;
  }
  return `${Math.floor(sec / 86400)} d`;
}

/** "12 s ago", "in 3 min". */
export function relative(iso) {
  if (!iso) return '';
  const delta = (new Date(iso).getTime() - Date.now()) / 1000;
  return delta > 1 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}

/** Pretty JSON for a <pre>. */
export function json(value) {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}
