import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { SPEC_TABLES as tables } from '../../../../../test/support/sql-tables.fixture';
import { LiveItem } from './live-event';
import { LivePublisher } from './live-publisher.service';
import { LiveWatchDetector } from './live-watch-detector.service';

const id = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const item = (n: number): LiveItem => [id(n), 'RUNNING', 'default', 'T', String(1795443000000000 + n), null];

/** A publisher over a pool that records each statement: the items it sent as text, or the ids it was to read. */
function publisher(watched = true, failing = new Set<number>()) {
  const sent: Array<{ kind: 'items'; items: LiveItem[] } | { kind: 'changes'; count: number }> = [];
  let statements = 0;
  const db = {
    tables,
    liveChannel: 'live',
    pool: {
      query: (text: string, values: unknown[]) => {
        if (failing.has(++statements)) return Promise.reject(new Error('refused'));
        if (text.includes('string_to_array')) {
          const items = (values[1] as string).split('\n').flatMap((payload) => JSON.parse(payload) as LiveItem[]);
          sent.push({ kind: 'items', items });
        } else {
          sent.push({ kind: 'changes', count: (values[2] as string[]).length });
        }
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
    },
  } as unknown as ConveyorDatabase;
  const live = new LivePublisher(db, { watched } as LiveWatchDetector);
  return { live, sent };
}

const settled = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('LivePublisher', () => {
  it('sends nothing while nobody watches', async () => {
    const { live, sent } = publisher(false);
    live.announceItems([item(1)]);
    live.announce([{ id: id(2), status: 'PENDING' }]);
    await settled();
    expect(sent).toEqual([]);
  });

  it('sends what writers hand it in the order they did: each run of items or of changes as one statement', async () => {
    const { live, sent } = publisher();
    live.announceItems([item(1), item(2)]);
    live.announceItems([item(3)]);
    live.announce([{ id: id(4), status: 'PENDING' }]);
    live.announceItems([item(5)]);
    await settled();
    expect(sent).toEqual([
      { kind: 'items', items: [item(1), item(2), item(3)] },
      { kind: 'changes', count: 1 },
      { kind: 'items', items: [item(5)] },
    ]);
  });

  it('sends at most 1,000 per statement', async () => {
    const { live, sent } = publisher();
    live.announceItems(Array.from({ length: 2500 }, (_, n) => item(n)));
    await settled();
    expect(sent.map((s) => (s.kind === 'items' ? s.items.length : s.count))).toEqual([1000, 1000, 500]);
  });

  it('goes on after a statement that fails or cannot be built, and sends what comes later', async () => {
    const { live, sent } = publisher(true, new Set([1]));
    live.announceItems([item(1)]);
    live.announce([{ id: 'not a uuid', status: 'PENDING' }]);
    live.announceItems([item(3)]);
    await settled();
    live.announceItems([item(4)]);
    await settled();
    expect(sent).toEqual([
      { kind: 'items', items: [item(3)] },
      { kind: 'items', items: [item(4)] },
    ]);
  });
});
