/**
 * How many claimed jobs the pool keeps ready beyond the running ones.
 *
 * A fixed number is used as given. `auto` sizes the buffer to what the pool starts while one claim is in flight:
 * a refill is asked for when the buffer is down to half, so that half must last one claim's round trip —
 * `size / 2 ≥ start rate × round trip` — and the size is twice that again for jitter, `4 × rate × round trip`,
 * between 0 and `max`. Both figures are smoothed over claims (each claim answer closes one measuring interval).
 *
 * Jobs that take long start slowly, so almost nothing is buffered and an instance never sits on work another
 * could start (no hoarding); no-op jobs under a deep backlog start as fast as claims arrive, so the size grows
 * about fourfold per round trip until it reaches `max`, where a refill asks for whole claim batches.
 */
export class PrefetchSizer {
  private static readonly HEADROOM = 4;
  private static readonly SMOOTHING = 0.5;

  private startsSinceAnswer = 0;
  private lastAnswerAt: number | null = null;
  private rate = 0; // jobs per ms
  private roundTrip = 0; // ms
  private size: number;

  constructor(
    private readonly setting: number | 'auto',
    private readonly max: number,
  ) {
    this.size = setting === 'auto' ? 0 : setting;
  }

  /** The prefetch to apply now. */
  get current(): number {
    return this.size;
  }

  /** `count` buffered jobs started running. */
  started(count = 1): void {
    this.startsSinceAnswer += count;
  }

  /** A claim sent at `sentAt` was answered at `answeredAt` (both performance.now()). */
  claimAnswered(sentAt: number, answeredAt: number): void {
    if (this.setting !== 'auto') return;
    const a = PrefetchSizer.SMOOTHING;
    if (this.lastAnswerAt !== null) {
      const interval = Math.max(answeredAt - this.lastAnswerAt, answeredAt - sentAt, 0.1);
      this.rate = a * (this.startsSinceAnswer / interval) + (1 - a) * this.rate;
    }
    this.roundTrip = a * Math.max(answeredAt - sentAt, 0) + (1 - a) * this.roundTrip;
    this.startsSinceAnswer = 0;
    this.lastAnswerAt = answeredAt;
    this.size = Math.min(this.max, Math.round(PrefetchSizer.HEADROOM * this.rate * this.roundTrip));
  }
}
