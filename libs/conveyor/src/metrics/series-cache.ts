/**
 * Per-job metric series, kept per label values and looked up without building a key: nested maps by
 * queue, type and a third label, so a lookup allocates nothing. Series are made once by `make`.
 */
export class SeriesCache<Series> {
  private readonly byQueue = new Map<string, Map<string, Map<string, Series>>>();

  constructor(private readonly make: (queue: string, type: string, third: string) => Series) {}

  /** The series for these label values (two or three, in the order the metric declares them). */
  get(queue: string, type: string, third = ''): Series {
    let byType = this.byQueue.get(queue);
    if (!byType) this.byQueue.set(queue, (byType = new Map()));
    let byThird = byType.get(type);
    if (!byThird) byType.set(type, (byThird = new Map()));
    let series = byThird.get(third);
    if (series === undefined) byThird.set(third, (series = this.make(queue, type, third)));
    return series;
  }
}
