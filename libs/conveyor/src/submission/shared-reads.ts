/** How long an answer is reused: `reuseFactor` times as long as it took to read, within [minAgeMs, maxAgeMs]. */
export interface SharedReadsOptions {
  minAgeMs: number;
  maxAgeMs: number;
  reuseFactor: number;
  /** The clock, in ms; injectable for specs. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  until: number;
}

/**
 * Answers of an expensive read, shared by every caller in this process: callers that ask while a read is under way
 * wait for it instead of starting their own, and its answer is reused for a while after. The reuse lasts
 * `reuseFactor` times as long as the read took (within bounds), so however many callers poll, the database spends at
 * most 1 / (1 + reuseFactor) of its time on one key, and a read that is quick (a small table) is barely reused at all.
 *
 * A failed read is not kept: its callers all get its error, and the next caller reads again. `forget()` is for a
 * change this process makes itself: every read asked for after it starts after it, and a read already under way
 * answers its own callers but is not kept.
 */
export class SharedReads<K, V> {
  private readonly answers = new Map<K, Entry<V>>();
  private readonly inFlight = new Map<K, Promise<V>>();
  private generation = 0;
  private readonly now: () => number;

  constructor(private readonly options: SharedReadsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The kept answer for `key` while it is fresh, else the read under way for it, else `load()` started now. */
  read(key: K, load: () => Promise<V>): Promise<V> {
    const kept = this.answers.get(key);
    if (kept && this.now() < kept.until) return Promise.resolve(kept.value);
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = this.load(key, load);
    this.inFlight.set(key, started);
    return started;
  }

  /** Drops every kept answer and detaches the reads under way, so the next read of any key starts afresh. */
  forget(): void {
    this.generation++;
    this.answers.clear();
    this.inFlight.clear();
  }

  private async load(key: K, load: () => Promise<V>): Promise<V> {
    const generation = this.generation;
    const startedAt = this.now();
    try {
      const value = await load();
      if (generation === this.generation) {
        const tookMs = this.now() - startedAt;
        const { minAgeMs, maxAgeMs, reuseFactor } = this.options;
        const reuseMs = Math.min(maxAgeMs, Math.max(minAgeMs, tookMs * reuseFactor));
        this.dropStale();
        this.answers.set(key, { value, until: this.now() + reuseMs });
      }
      return value;
    } finally {
      if (generation === this.generation) this.inFlight.delete(key);
    }
  }

  /** Keeps the map as small as the keys in use: a caller may ask for many keys once each. */
  private dropStale(): void {
    const now = this.now();
    for (const [key, entry] of this.answers) if (entry.until <= now) this.answers.delete(key);
  }
}
