import { RatioRow } from './summary';

const WIDTH = 1000;
const LABEL_X = 16;
const PLOT_LEFT = 380;
const PLOT_RIGHT = 850;
const VALUE_X = 862;
const TOP = 86;
const ROW = 26;
const BAR = 12;

const COLOURS = { pass: '#2e7d32', miss: '#c62828', info: '#78909c', target: '#6a1b9a', grid: '#e0e0e0', parity: '#9e9e9e' };

/**
 * A horizontal bar chart of the ratio rows: one bar per case and claim strategy at the median ratio,
 * a whisker over the repetitions' min–max, and the target as a purple tick. Written as plain SVG
 * (no chart library), readable on GitHub.
 */
export function renderRatioChart(rows: RatioRow[], title: string, subtitle: string): string {
  const plotted = rows.filter((r) => Number.isFinite(r.ratio.median));
  const top = Math.max(1.6, ...plotted.map((r) => r.ratio.max), ...plotted.map((r) => r.target ?? 0));
  const xMax = Math.ceil(top * 1.05 * 5) / 5;
  const x = (v: number) => PLOT_LEFT + (Math.min(v, xMax) / xMax) * (PLOT_RIGHT - PLOT_LEFT);
  const height = TOP + plotted.length * ROW + 50;
  const out: string[] = [];

  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    text(LABEL_X, 24, title, { size: 16, weight: 'bold' }),
    text(LABEL_X, 42, subtitle, { fill: '#555' }),
    legend(LABEL_X, 62),
  );

  // Zebra stripes first, so the grid and the bars are drawn over them.
  plotted.forEach((_, i) => {
    if (i % 2 === 0)
      out.push(`<rect x="${LABEL_X - 6}" y="${TOP + i * ROW}" width="${WIDTH - 2 * (LABEL_X - 6)}" height="${ROW}" fill="#f5f5f5"/>`);
  });
  const step = xMax <= 2 ? 0.2 : xMax <= 5 ? 0.5 : 1;
  for (let v = 0; v <= xMax + 1e-9; v += step) {
    const gx = x(v);
    out.push(line(gx, TOP - 6, gx, TOP + plotted.length * ROW, COLOURS.grid));
    out.push(text(gx, TOP + plotted.length * ROW + 16, v.toFixed(1), { anchor: 'middle', fill: '#555' }));
  }
  out.push(line(x(1), TOP - 6, x(1), TOP + plotted.length * ROW, COLOURS.parity, { width: 1.5 }));
  out.push(text(x(1), TOP - 10, 'floor = 1.0', { anchor: 'middle', fill: '#555', size: 10 }));
  out.push(
    text((PLOT_LEFT + PLOT_RIGHT) / 2, TOP + plotted.length * ROW + 34, 'ratio to the baseline (median of the runs; whisker: min–max)', {
      anchor: 'middle',
      fill: '#555',
    }),
  );

  plotted.forEach((row, i) => {
    const y = TOP + i * ROW;
    const mid = y + ROW / 2;
    const direction = row.def.direction === 'lower' ? ' (lower is better)' : '';
    out.push(text(LABEL_X, mid + 4, `${row.label}${direction} — ${row.variant}`));
    const colour = row.pass === undefined ? COLOURS.info : row.pass ? COLOURS.pass : COLOURS.miss;
    out.push(
      `<rect x="${x(0)}" y="${mid - BAR / 2}" width="${Math.max(1, x(row.ratio.median) - x(0))}" height="${BAR}" fill="${colour}" opacity="0.85"/>`,
    );
    if (row.ratio.runs > 1) {
      out.push(line(x(row.ratio.min), mid, x(row.ratio.max), mid, '#212121'));
      out.push(line(x(row.ratio.min), mid - 4, x(row.ratio.min), mid + 4, '#212121'));
      out.push(line(x(row.ratio.max), mid - 4, x(row.ratio.max), mid + 4, '#212121'));
    }
    if (row.target !== undefined) {
      out.push(line(x(row.target), y + 3, x(row.target), y + ROW - 3, COLOURS.target, { width: 3 }));
    }
    const sign = row.def.direction === 'higher' ? '≥' : '≤';
    const goal = row.target === undefined ? '' : `  (${sign} ${row.target})`;
    const clipped = row.ratio.median > xMax ? ' ▸' : '';
    out.push(text(VALUE_X, mid + 4, `${row.ratio.median.toFixed(2)}×${goal}${clipped}`, { fill: colour, weight: 'bold' }));
  });

  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function legend(x0: number, y: number): string {
  const items: [string, string][] = [
    [COLOURS.pass, 'meets its target'],
    [COLOURS.miss, 'misses its target'],
    [COLOURS.info, 'no target'],
  ];
  const parts: string[] = [];
  let x = x0;
  for (const [colour, label] of items) {
    parts.push(`<rect x="${x}" y="${y - 9}" width="12" height="12" fill="${colour}"/>`, text(x + 18, y + 1, label));
    x += 150;
  }
  parts.push(line(x, y - 10, x, y + 4, COLOURS.target, { width: 3 }), text(x + 10, y + 1, 'target'));
  return parts.join('\n');
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, o: { width?: number } = {}): string {
  return `<line x1="${x1.toFixed(1)}" y1="${y1}" x2="${x2.toFixed(1)}" y2="${y2}" stroke="${stroke}" stroke-width="${o.width ?? 1}"/>`;
}

function text(
  x: number,
  y: number,
  content: string,
  o: { size?: number; weight?: string; fill?: string; anchor?: 'start' | 'middle' | 'end' } = {},
): string {
  const attrs = [
    `x="${x.toFixed(1)}"`,
    `y="${y}"`,
    o.size ? `font-size="${o.size}"` : '',
    o.weight ? `font-weight="${o.weight}"` : '',
    o.fill ? `fill="${o.fill}"` : '',
    o.anchor ? `text-anchor="${o.anchor}"` : '',
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escapeXml(content)}</text>`;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}
