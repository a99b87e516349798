import { Counter, Registry } from 'prom-client';

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
  private readonly all: CounterSeries[] = [];
  readonly counter: Counter<L>;

  constructor(config: SeriesCounterConfig<L>) {
    const all = this.all;
    this.counter = new Counter<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: config.registers,
      collect() {
        for (const s of all) {
          if (s.pending === 0) continue;
          this.inc(s.labels as Partial<Record<L, string>>, s.pending);
          s.pending = 0;
        }
      },
    });
  }

  /** A new series for these labels (cache it: each call adds one). */
  series(labels: Record<L, string>): CounterSeries {
    const s = new CounterSeries(labels);
    this.all.push(s);
    return s;
  }
}
