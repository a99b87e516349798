/** Most label values a per-job metric series is looked up by. */
export const MAX_SERIES_LABELS = 3;

/**
 * The series of one per-job metric, by label values, looked up without building a key: nested maps by
 * the first, second and third value, so a lookup allocates nothing. Each series is made once by `make`,
 * with the label object it is reported under; `all` lists them in the order they were made.
 */
export class SeriesCache<Series> {
  readonly all: Series[] = [];
  private byFirst = new Map<string, Map<string, Map<string, Series>>>();

  constructor(
    private readonly labelNames: readonly string[],
    private readonly make: (labels: Readonly<Record<string, string>>) => Series,
  ) {
    if (labelNames.length < 1 || labelNames.length > MAX_SERIES_LABELS) {
      throw new RangeError(`A per-job metric takes 1 to ${MAX_SERIES_LABELS} labels, not ${labelNames.length}`);
    }
  }

  /** The series for these label values, in the order the metric declares its labels. */
  get(a: string, b = '', c = ''): Series {
    let bySecond = this.byFirst.get(a);
    if (!bySecond) this.byFirst.set(a, (bySecond = new Map()));
    let byThird = bySecond.get(b);
    if (!byThird) bySecond.set(b, (byThird = new Map()));
    let series = byThird.get(c);
    if (series === undefined) {
      const values = [a, b, c];
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]));
      byThird.set(c, (series = this.make(labels)));
      this.all.push(series);
    }
    return series;
  }

  /** Forgets every series (a registry reset); series handed out before are no longer reported. */
  clear(): void {
    this.byFirst = new Map();
    this.all.length = 0;
  }
}
