import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { LiveWatchDetector, WATCH_REFRESH_MS } from './live-watch-detector.service';

/** A database whose live-watch leases are `leased`, counting the checks it answers. */
function fakeDatabase() {
  const state = { leased: false, checks: 0 };
  const db = {
    tables: { liveWatch: 'conveyor_live_watch', key: 'test' },
    pool: {
      query: () => {
        state.checks++;
        return Promise.resolve({ rows: [{ watched: state.leased }] });
      },
    },
  } as unknown as ConveyorDatabase;
  return { db, state };
}

describe('LiveWatchDetector', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const tick = async (ms: number) => {
    await jest.advanceTimersByTimeAsync(ms);
  };

  it('checks the leases every second while it hears no notices', async () => {
    const { db, state } = fakeDatabase();
    const detector = new LiveWatchDetector(db);
    detector.onApplicationBootstrap();
    await tick(WATCH_REFRESH_MS * 5);
    expect(state.checks).toBe(6);
    state.leased = true;
    await tick(WATCH_REFRESH_MS);
    expect(detector.watched).toBe(true);
    detector.onModuleDestroy();
  });

  it('asks nothing while it listens and nobody watches, and learns of a watcher from its notice', async () => {
    const { db, state } = fakeDatabase();
    const detector = new LiveWatchDetector(db);
    detector.onApplicationBootstrap();
    detector.setListening(true);
    await tick(0);
    const afterStart = state.checks;
    await tick(WATCH_REFRESH_MS * 30);
    expect(state.checks).toBe(afterStart);
    expect(detector.watched).toBe(false);

    detector.noticed(15_000);
    expect(detector.watched).toBe(true);
    await tick(14_000);
    expect(detector.watched).toBe(true);
    await tick(2_000);
    expect(detector.watched).toBe(false);
    expect(state.checks).toBe(afterStart);
    detector.onModuleDestroy();
  });

  it('keeps checking while its last check found a lease, until the lease is gone, then stops', async () => {
    const { db, state } = fakeDatabase();
    state.leased = true;
    const detector = new LiveWatchDetector(db);
    detector.onApplicationBootstrap();
    detector.setListening(true);
    await tick(WATCH_REFRESH_MS * 3);
    expect(detector.watched).toBe(true);
    state.leased = false;
    await tick(WATCH_REFRESH_MS);
    expect(detector.watched).toBe(false);
    const settled = state.checks;
    await tick(WATCH_REFRESH_MS * 10);
    expect(state.checks).toBe(settled);
    detector.onModuleDestroy();
  });

  it('checks once when it starts listening again, since notices were lost meanwhile', async () => {
    const { db, state } = fakeDatabase();
    const detector = new LiveWatchDetector(db);
    detector.setListening(true);
    await tick(0);
    const before = state.checks;
    detector.setListening(false);
    detector.setListening(true);
    await tick(0);
    expect(state.checks).toBe(before + 1);
  });
});
