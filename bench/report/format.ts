import { Aggregate } from './summary';

/** A number with as many decimals as its size deserves; an en dash for none. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/** `median (min–max)`, or just the median for a single run. */
export function agg(a: Aggregate): string {
  if (a.runs <= 1 || a.min === a.max) return num(a.median);
  return `${num(a.median)} (${num(a.min)}–${num(a.max)})`;
}

/** A ratio with its spread, e.g. `0.82× (0.79–0.85)`. */
export function ratio(a: Aggregate): string {
  if (!Number.isFinite(a.median)) return '–';
  const r = (n: number) => n.toFixed(2);
  return a.runs <= 1 || a.min === a.max ? `${r(a.median)}×` : `${r(a.median)}× (${r(a.min)}–${r(a.max)})`;
}

/** `≥ 0.7` / `≤ 1.2`. */
export function targetText(direction: 'higher' | 'lower', target: number | undefined): string {
  if (target === undefined) return '';
  return `${direction === 'higher' ? '≥' : '≤'} ${target}`;
}

export function status(pass: boolean | undefined): string {
  return pass === undefined ? '' : pass ? 'PASS' : 'MISS';
}

/** Fixed-width text table; the first row is the header. */
export function textTable(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? '')].length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd();
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** GitHub-flavoured Markdown table; the first row is the header. */
export function markdownTable(rows: string[][], align?: ('l' | 'r')[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const sep = rows[0].map((_, c) => (align?.[c] === 'r' ? '---:' : '---'));
  return [rows[0], sep, ...rows.slice(1)].map((r, i) => `| ${(i === 1 ? r : r.map(esc)).join(' | ')} |`).join('\n');
}
