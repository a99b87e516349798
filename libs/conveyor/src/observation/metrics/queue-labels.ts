/**
 * The `queue` label of jobs whose queue is not among the first `metricsMaxQueues` this process labelled. Not a
 * valid queue name (queues are `[A-Za-z0-9_.:-]+`), so it never merges with a real queue's series.
 */
export const OTHER_QUEUE = '(other)';

/**
 * Keeps the `queue` label of every engine metric to a bounded set, as Prometheus needs: the first `max` queue
 * names this process meets are labelled as they are, and any queue met after them is labelled `(other)` for the
 * life of the process. A queue per tenant, or one made up per request, then costs `max` series per metric and
 * type instead of one per queue for ever; each job is still counted, once, so `sum()` over queues stays exact.
 * Names are taken on first sight and never released: a counter's series must not change meaning mid-process.
 */
export class QueueLabels {
  private readonly named = new Set<string>();

  constructor(private readonly max: number) {}

  /** The label value this queue's jobs are reported under. */
  of(queue: string): string {
    if (this.named.has(queue)) return queue;
    if (this.named.size >= this.max) return OTHER_QUEUE;
    this.named.add(queue);
    return queue;
  }
}
