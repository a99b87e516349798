import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { DatabaseClock } from '../storage/connections/database-clock.service';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { LivePublisher } from '../observation/live/live-publisher.service';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { ClaimStrategy } from './claiming/claim-strategy.interface';
import { ClaimTrigger } from './claim-trigger';
import { JobPoller } from './job-poller.service';
import { PickupHooks } from './pickup-hooks';
import { WorkerPool } from './worker-pool.service';

/** The due timer, on Jest's fake clock (Date.now() and timers both); every claim comes back empty. */
describe('JobPoller: the due timer', () => {
  const T0 = 1_800_000_000_000;
  let claims: number;
  let poller: JobPoller;
  let trigger: ClaimTrigger;
  let clock: DatabaseClock;

  beforeEach(async () => {
    jest.useFakeTimers({ now: T0 });
    claims = 0;
    const strategy = {
      shortClaimsMayLeaveWork: false,
      claim: () => {
        claims++;
        return Promise.resolve({ jobs: [], lostEveryRound: false, startedAtUs: () => new Map() });
      },
    } as unknown as ClaimStrategy;
    const pool = {
      claimRequest: () => ({ limit: 10 }),
      accept: () => undefined,
      claimWasCapped: false,
      freeCapacity: () => 10,
      wantsRefill: () => true,
    } as unknown as WorkerPool;
    const pickup: PickupHooks = {
      isEcho: () => false,
      claimStarting: () => 0,
      claimReturned: () => undefined,
      noClaimComing: () => undefined,
    };
    const options = { pollIntervalMs: 3_600_000, workerId: 'w', leaseMs: 30_000 } as ConveyorOptions;
    const events = { emit: () => undefined } as unknown as ConveyorEvents;
    const live = { watching: false } as unknown as LivePublisher;
    clock = new DatabaseClock();
    trigger = new ClaimTrigger(clock);
    poller = new JobPoller(options, strategy, pool, events, trigger, pickup, live, clock, new DatabaseOutages());
    await poller.start();
    claims = 0;
  });

  afterEach(() => {
    poller.stop();
    jest.useRealTimers();
  });

  it('claims at each due time it heard of, a later one first, once each', async () => {
    trigger.jobsDueAt(T0 + 500);
    trigger.jobsDueAt(T0 + 100);
    // A millisecond after each due time: the margin for a database clock a little behind.
    await jest.advanceTimersByTimeAsync(100);
    expect(claims).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(claims).toBe(1);
    await jest.advanceTimersByTimeAsync(399);
    expect(claims).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(claims).toBe(2);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(claims).toBe(2);
  });

  it('waits on when its timer fires before Date.now() has reached the due time', async () => {
    trigger.jobsDueAt(T0 + 100);
    jest.setSystemTime(T0 - 3); // Date.now() falls behind the timers' clock by 3 ms
    await jest.advanceTimersByTimeAsync(101);
    expect(claims).toBe(0);
    await jest.advanceTimersByTimeAsync(3);
    expect(claims).toBe(1);
  });

  it("waits out the clock estimate's uncertainty, half the round trip of the reading it rests on, before it claims", async () => {
    clock.read(T0 + 10, T0, T0 + 20); // the clocks agree, read within a 20 ms round trip: the estimate is good to 10 ms
    trigger.jobsDueAt(T0 + 100);
    await jest.advanceTimersByTimeAsync(110);
    expect(claims).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(claims).toBe(1);
  });

  it('claims again once certain of a due time it heard of just after it passed by the estimate', async () => {
    clock.read(T0 + 10, T0, T0 + 20); // the estimate is good to 10 ms: T0 - 5 may not have come yet
    trigger.jobsDueAt(T0 - 5);
    await jest.advanceTimersByTimeAsync(0);
    expect(claims).toBe(1); // at once, in case it has
    await jest.advanceTimersByTimeAsync(5);
    expect(claims).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(claims).toBe(2); // and once it surely has
  });

  it('waits out the uncertainty the clock has when the timer fires, not when it was armed', async () => {
    trigger.jobsDueAt(T0 + 100);
    await jest.advanceTimersByTimeAsync(50);
    clock.read(T0 + 60, T0 + 50, T0 + 70); // a reading since: the estimate is now good to 10 ms only
    await jest.advanceTimersByTimeAsync(60);
    expect(claims).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(claims).toBe(1);
  });

  it('claims no more once stopped, though due times were left', async () => {
    trigger.jobsDueAt(T0 + 100);
    trigger.jobsDueAt(T0 + 200);
    await jest.advanceTimersByTimeAsync(101);
    expect(claims).toBe(1);
    poller.stop();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(claims).toBe(1);
  });

  it('claims jobs due now at once, with no timer after', async () => {
    trigger.jobsDueNow();
    await jest.advanceTimersByTimeAsync(0);
    expect(claims).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(claims).toBe(1);
  });
});
