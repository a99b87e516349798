import { Counter, Registry } from 'prom-client';
import { SeriesCache } from './series-cache';

/** One labelled series of a SeriesCounter: counting is one addition, handed to prom-client when scraped. */
export class CounterSeries {
  pending = 0;

  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(by = 1): void {
    this.pending += by;
  }
}

export interface SeriesCounterConfig<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

/**
 * A prom-client Counter for per-job counts. A labelled child's `inc` hashes its labels into a new string
 * on every call; here counts accumulate in plain fields and reach the Counter in its `collect` hook, once
 * per series per scrape, so the exposition is prom-client's own.
 */
export class SeriesCounter<L extends string> {
  readonly counter: Counter<L>;
  private readonly cache: SeriesCache<CounterSeries>;

  constructor(config: SeriesCounterConfig<L>) {
    const cache = (this.cache = new SeriesCache(config.labelNames, (labels) => new CounterSeries(labels)));
    this.counter = new Counter<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: config.registers,
      collect() {
        for (const s of cache.all) {
          if (s.pending === 0) continue;
          this.inc(s.labels as Partial<Record<L, string>>, s.pending);
          s.pending = 0;
        }
      },
    });
  }

  /** The series for these label values, in `labelNames` order (looked up without allocating). */
  series(a: string, b?: string, c?: string): CounterSeries {
    return this.cache.get(a, b, c);
  }
}
