import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { CLAIMED_COLUMN_COUNT } from '../../storage/statements/claimed-row.codec';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';
import { OptimisticClaimStrategy } from './optimistic.claim-strategy';
import { SPEC_TABLES as tables } from '../../../../../test/support/sql-tables.fixture';

const filter: ClaimFilter = { types: ['T'], excludedQueues: [], limit: 10 };

/**
 * A strategy whose every claim statement wins nothing and reads `read()` rows: none (an empty queue), or some
 * (competitors quicker every time). It records each statement's read window (its fourth parameter).
 */
function emptyHanded(read: () => number): { strategy: OptimisticClaimStrategy; windows: number[] } {
  const windows: number[] = [];
  const connection = {
    runner: {
      query: (_text: string, values: unknown[]) => {
        windows.push(values[3] as number);
        // What the statement answers when it won nothing: one row, job columns null, then the count it read.
        return Promise.resolve({ rows: [[...Array<null>(CLAIMED_COLUMN_COUNT).fill(null), read()]], rowCount: 1 });
      },
    },
  } as unknown as WorkerConnection;
  const db = { tables } as unknown as ConveyorDatabase;
  return { strategy: new OptimisticClaimStrategy(db, connection), windows };
}

describe('OptimisticClaimStrategy, claims that win nothing', () => {
  const claim = (strategy: OptimisticClaimStrategy) => strategy.claim(filter, 'w', 30_000);

  it('reads an empty queue once per claim, and says it lost no race', async () => {
    const { strategy, windows } = emptyHanded(() => 0);
    for (let i = 0; i < 3; i++) expect(await claim(strategy)).toMatchObject({ jobs: [], lostEveryRound: false });
    expect(windows).toEqual([10, 10, 10]);
  });

  it('reads rows it cannot take as lost races: goes round again, each round twice as wide, and says so', async () => {
    const { strategy, windows } = emptyHanded(() => 40);
    expect(await claim(strategy)).toMatchObject({ jobs: [], lostEveryRound: true });
    expect(windows).toEqual([10, 20, 40, 80, 160]);
    // Having met competitors, the next claim's first round reads double already.
    expect(await claim(strategy)).toMatchObject({ jobs: [], lostEveryRound: true });
    expect(windows.slice(5)).toEqual([20, 40, 80, 160, 320]);
  });

  it('says it lost no race when its last round found the queue empty', async () => {
    const reads = [40, 0];
    const { strategy, windows } = emptyHanded(() => reads.shift() ?? 0);
    expect(await claim(strategy)).toMatchObject({ jobs: [], lostEveryRound: false });
    expect(windows).toEqual([10, 20]);
  });
});
