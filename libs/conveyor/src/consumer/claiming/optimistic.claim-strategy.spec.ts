import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { WorkerConnection } from '../../storage/connections/worker-connection.service';
import { ClaimFilter } from '../../storage/statements/claim-filter.interface';
import { OptimisticClaimStrategy } from './optimistic.claim-strategy';
import { SPEC_TABLES as tables } from '../../../../../test/support/sql-tables.fixture';

const filter: ClaimFilter = { types: ['T'], excludedQueues: [], limit: 10 };

/** A strategy whose every claim statement wins nothing (an empty queue, or competitors quicker every time). */
function emptyHanded(): { strategy: OptimisticClaimStrategy; statements: () => number } {
  let sent = 0;
  const connection = {
    runner: {
      query: () => {
        sent++;
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
    },
  } as unknown as WorkerConnection;
  const db = { tables } as unknown as ConveyorDatabase;
  return { strategy: new OptimisticClaimStrategy(db, connection), statements: () => sent };
}

describe('OptimisticClaimStrategy, claims that win nothing', () => {
  it('reads the first empty claim under competition as lost races, and says so once', async () => {
    const { strategy, statements } = emptyHanded();

    // Contended at start: every empty round counts as lost, up to the round limit.
    expect(await strategy.claim(filter, 'w', 30_000)).toEqual([]);
    expect(statements()).toBe(5);
    expect(strategy.lastClaimLostEveryRound).toBe(true);

    // Still contended for the claim made again: it retries its empty rounds, and a second such claim in a row is
    // read as an empty queue.
    expect(await strategy.claim(filter, 'w', 30_000)).toEqual([]);
    expect(statements()).toBe(10);
    expect(strategy.lastClaimLostEveryRound).toBe(false);

    // No longer contended: an empty queue costs one statement per claim, and nothing asks for another.
    expect(await strategy.claim(filter, 'w', 30_000)).toEqual([]);
    expect(statements()).toBe(11);
    expect(strategy.lastClaimLostEveryRound).toBe(false);
  });
});
