import { Metric, MetricValueWithName, Registry } from 'prom-client';
import { SeriesCache } from './series-cache';

/** What a registry reads from a metric when it renders it. */
export interface RenderedMetric {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: MetricValueWithName<string>[];
}

/** One labelled series of a SeriesHistogram: observing is a bucket walk and three additions. */
export class HistogramSeries {
  /** Observations per bucket, not cumulative; the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

export interface SeriesHistogramConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  buckets: readonly number[];
  registers: Registry[];
}

/**
 * A Prometheus histogram for per-job observations. prom-client's Histogram builds a label hash string
 * and two small objects on every `observe`, even through a labelled child; at tens of thousands of jobs
 * per second that was a fifth of what a worker allocated per job. Here looking a series up and observing
 * allocate nothing. The exposition is the same
 * as prom-client's (checked by the spec against a prom-client Histogram fed the same values).
 */
export class SeriesHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly bounds: number[];
  private readonly cache: SeriesCache<HistogramSeries>;

  constructor(config: SeriesHistogramConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    const bounds = (this.bounds = [...config.buckets].sort((a, b) => a - b));
    this.cache = new SeriesCache(config.labelNames, (labels) => new HistogramSeries(labels, bounds));
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series for these label values, in `labelNames` order (looked up without allocating). */
  series(a: string, b?: string, c?: string): HistogramSeries {
    return this.cache.get(a, b, c);
  }

  /** What the registry renders (the shape prom-client's own histograms produce). */
  async get(): Promise<RenderedMetric> {
    const values: MetricValueWithName<string>[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.cache.all) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: bucket });
      values.push({ labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /**
   * Drops every series (`registry.resetMetrics()`). Series handed out before keep counting but are no
   * longer reported, so callers that keep series must not be reset; the engine's metrics never are.
   */
  reset(): void {
    this.cache.clear();
  }
}
