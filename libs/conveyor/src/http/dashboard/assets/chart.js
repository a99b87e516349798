// Throughput charts drawn as inline SVG: a bar chart per minute (completed stacked under failed) for the
// overview, and a small sparkline per queue. No library: a few rectangles and lines.

import { s } from './dom.js';
import { clockTime } from './time.js';

/** A "nice" upper bound for an axis, at or above the largest value: 5, 10, 20, 50, 100, … (fifths are whole). */
function niceMax(value) {
  if (value <= 5) return 5;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Jobs finished per minute, all queues together: `minutes` is [{ minute, completed, failed }].
 * Each bar has a <title>, so hovering shows the exact numbers.
 */
export function throughputChart(minutes, { width = 1160, height = 220 } = {}) {
  const pad = { top: 10, right: 8, bottom: 24, left: 36 };
  const innerW = width - pad.left - pad.right;
  const innerH = height - pad.top - pad.bottom;
  const top = niceMax(Math.max(0, ...minutes.map((m) => m.completed + m.failed)));
  const y = (v) => pad.top + innerH - (v / top) * innerH;
  const slot = innerW / Math.max(1, minutes.length);
  const barW = Math.max(2, Math.min(36, slot * 0.6));

  const grid = [0, 0.2, 0.4, 0.6, 0.8, 1].map((f) => {
    const v = Math.round(top * f);
    return [
      s('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'chart-grid' }),
      s('text', { x: pad.left - 6, y: y(v) + 4, class: 'chart-label', 'text-anchor': 'end' }, String(v)),
    ];
  });
  const bars = minutes.map((m, i) => {
    const x = pad.left + i * slot + (slot - barW) / 2;
    const doneTop = y(m.completed);
    const failTop = y(m.completed + m.failed);
    return s(
      'g',
      { class: 'chart-bar' },
      s('title', {}, `${clockTime(m.minute)}: ${m.completed} completed, ${m.failed} failed`),
      m.completed > 0 && s('rect', { x, y: doneTop, width: barW, height: pad.top + innerH - doneTop, class: 'bar-completed', rx: 2 }),
      m.failed > 0 && s('rect', { x, y: failTop, width: barW, height: doneTop - failTop, class: 'bar-failed', rx: 2 }),
    );
  });
  const ticks = minutes
    .map((m, i) => ({ m, i }))
    .filter(({ i }) => i === 0 || i === minutes.length - 1 || i % 5 === 0)
    .map(({ m, i }) =>
      s('text', { x: pad.left + i * slot + slot / 2, y: height - 8, class: 'chart-label', 'text-anchor': 'middle' }, clockTime(m.minute)),
    );

  return s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': 'Jobs finished per minute' },
    grid,
    bars,
    s('line', { x1: pad.left, x2: width - pad.right, y1: pad.top + innerH, y2: pad.top + innerH, class: 'chart-axis' }),
    ticks,
  );
}

/** A queue's finished jobs per minute as a tiny bar strip (failed minutes in red). */
export function sparkline(minutes, { width = 96, height = 24 } = {}) {
  const top = Math.max(1, ...minutes.map((m) => m.completed + m.failed));
  const slot = width / Math.max(1, minutes.length);
  const total = minutes.reduce((n, m) => n + m.completed + m.failed, 0);
  return s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, width, height, class: 'sparkline', role: 'img', 'aria-label': `${total} jobs finished` },
    s('line', { x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5, class: 'chart-axis' }),
    minutes.map((m, i) => {
      const v = m.completed + m.failed;
      if (v === 0) return null;
      const barH = Math.max(2, (v / top) * (height - 2));
      return s('rect', {
        x: i * slot + 1,
        y: height - barH,
        width: Math.max(1, slot - 2),
        height: barH,
        class: m.failed > 0 ? 'bar-failed' : 'bar-completed',
        rx: 1,
      });
    }),
  );
}
