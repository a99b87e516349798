import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter } from './series-counter';
import { SeriesHistogram } from './series-histogram';

const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const VALUES = [0, 0.005, 0.0051, 0.05, 0.1, 0.5, 1, 3, 10, 11, 1e9];

/** A registry's exposition text. */
async function text(registry: Registry): Promise<string> {
  return (await registry.metrics()).trim();
}

describe('SeriesHistogram', () => {
  it("renders exactly what prom-client's Histogram renders for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const h = new SeriesHistogram({
      name: 'h',
      help: 'help text',
      labelNames: ['queue', 'type', 'outcome'],
      buckets: BUCKETS,
      registers: [ours],
    });
    const p = new Histogram({
      name: 'h',
      help: 'help text',
      labelNames: ['queue', 'type', 'outcome'],
      buckets: BUCKETS,
      registers: [theirs],
    });
    const a = h.series('default', 'SEND_EMAIL', 'completed');
    const b = h.series('emails', 'SEND "quoted"\\n', 'failed');
    VALUES.forEach((v, i) => {
      const second = i % 3 === 1;
      (second ? b : a).observe(v);
      p.observe(
        second
          ? { queue: 'emails', type: 'SEND "quoted"\\n', outcome: 'failed' }
          : { queue: 'default', type: 'SEND_EMAIL', outcome: 'completed' },
        v,
      );
    });
    expect(await text(ours)).toBe(await text(theirs));
  });

  it('hands out one series per label values', () => {
    const h = new SeriesHistogram({ name: 'h', help: 'h', labelNames: ['queue'], buckets: BUCKETS, registers: [] });
    expect(h.series('a')).toBe(h.series('a'));
    expect(h.series('a')).not.toBe(h.series('b'));
  });

  it('renders no series after a registry reset, as prom-client does', async () => {
    const registry = new Registry();
    const h = new SeriesHistogram({ name: 'h', help: 'h', labelNames: ['queue'], buckets: BUCKETS, registers: [registry] });
    h.series('a').observe(1);
    registry.resetMetrics();
    expect(await text(registry)).toBe('# HELP h h\n# TYPE h histogram');
  });
});

describe('SeriesCounter', () => {
  it("renders what prom-client's Counter renders, counts made between scrapes included", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const c = new SeriesCounter({ name: 'c_total', help: 'count', labelNames: ['queue', 'type'], registers: [ours] });
    const p = new Counter({ name: 'c_total', help: 'count', labelNames: ['queue', 'type'], registers: [theirs] });
    const a = c.series('default', 'A');
    const b = c.series('other', 'B');
    a.inc();
    a.inc(2);
    p.inc({ queue: 'default', type: 'A' }, 3);
    expect(await text(ours)).toBe(await text(theirs));
    b.inc();
    a.inc();
    p.inc({ queue: 'other', type: 'B' });
    p.inc({ queue: 'default', type: 'A' });
    expect(await text(ours)).toBe(await text(theirs));
  });
});
