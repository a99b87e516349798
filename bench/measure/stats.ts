/** Median of the values (mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of the values; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Smallest and largest finite value. */
export function spread(values: number[]): { min: number; max: number } {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? { min: NaN, max: NaN } : { min: Math.min(...finite), max: Math.max(...finite) };
}
