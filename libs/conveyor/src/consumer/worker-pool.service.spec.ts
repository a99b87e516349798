import { DatabaseClock } from '../storage/connections/database-clock.service';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { conveyorDefaults } from '../config/conveyor-defaults';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { RegisteredHandler } from '../handlers/registered-handler.interface';
import { Job } from '../job/job';
import { PlainJob } from '../job/plain-job';
import { ConveyorEvents } from '../observation/events/conveyor-events.service';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { FinishRow } from '../storage/statements/finish-row';
import { JobStatus } from '../job/job-status';
import { ClaimTrigger } from './claim-trigger';
import { Completer } from './completer.service';
import { HeldJob } from './held-job';
import { JobExecutor } from './job-executor.service';
import { WorkerPool } from './worker-pool.service';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { waitFor } from '../../../../test/support/wait-for';
import { LeaseLostError } from '../errors/lease-lost.error';

/** An executor that runs nothing until the test ends an attempt. */
class HeldExecutor {
  readonly running = new Map<string, (row: FinishRow | null) => void>();
  readonly held = new Map<string, HeldJob>();
  execute(held: HeldJob, _heartbeat: unknown, done: (row: FinishRow | null) => void): void {
    this.running.set(held.job.id, done);
    this.held.set(held.job.id, held);
  }
}

function handler(type: string, concurrency: number | null = null): RegisteredHandler {
  return { type, queue: 'default', concurrency } as RegisteredHandler;
}

let seq = 0;
function job(type: string, queue = 'default'): Job {
  return Object.assign(new PlainJob(), { id: `j${++seq}`, type, queue, leaseToken: 'tok', runAt: new Date(), attempts: 1 });
}

/** A pool over fakes: no database. */
function poolWith(options: Partial<ConveyorOptions>, handlers: RegisteredHandler[], backlog = 0) {
  const registry = new HandlerRegistry();
  for (const h of handlers) registry.register(h);
  const executor = new HeldExecutor();
  const completer = { backlog, add: jest.fn() } as unknown as Completer;
  const trigger = new ClaimTrigger(new DatabaseClock());
  const waker = { capacityFreed: jest.fn(), jobsDueAt: jest.fn(), jobsDueNow: jest.fn(), queriedDatabase: jest.fn() };
  trigger.attach(waker);
  const opts = { ...conveyorDefaults(), ...options };
  const pool = new WorkerPool(
    opts,
    {} as ConveyorDatabase,
    registry,
    executor as unknown as JobExecutor,
    completer,
    new ConveyorEvents(),
    trigger,
  );
  return { pool, executor, completer, waker };
}

describe('WorkerPool: a claim’s room', () => {
  it('asks for nothing before it starts', () => {
    const { pool } = poolWith({}, [handler('A')]);
    expect(pool.claimRequest()).toBeNull();
  });

  it('asks for concurrency + prefetch, at most one claim batch, for every type run here', () => {
    const { pool } = poolWith({ concurrency: 4, prefetch: 2, claimBatchSize: 100, externalTypes: ['EXT'] }, [
      handler('A'),
      handler('B'),
      handler('EXT'),
    ]);
    pool.start();
    expect(pool.claimRequest()).toEqual({ types: ['A', 'B'], excludedQueues: [], limit: 6 });
    expect(pool.claimWasCapped).toBe(false);
    const small = poolWith({ concurrency: 50, prefetch: 50, claimBatchSize: 10 }, [handler('A')]).pool;
    small.start();
    expect(small.claimRequest()?.limit).toBe(10);
  });

  it('asks for only the room held jobs leave, and nothing when full', () => {
    const { pool } = poolWith({ concurrency: 2, prefetch: 1 }, [handler('A')]);
    pool.start();
    pool.accept([job('A'), job('A')], performance.now());
    expect(pool.stats()).toMatchObject({ running: 2, buffered: 0 });
    expect(pool.claimRequest()?.limit).toBe(1);
    pool.accept([job('A')], performance.now());
    expect(pool.claimRequest()).toBeNull();
  });

  it('asks for nothing while too many outcomes wait to be written', () => {
    const { pool } = poolWith({ completionBatchSize: 10 }, [handler('A')], 101);
    pool.start();
    expect(pool.claimRequest()).toBeNull();
  });

  it('leaves out a type at its concurrency cap, and says the claim was capped', () => {
    const { pool } = poolWith({ concurrency: 10 }, [handler('A', 1), handler('B')]);
    pool.start();
    pool.accept([job('A')], performance.now());
    expect(pool.claimRequest()?.types).toEqual(['B']);
    expect(pool.claimWasCapped).toBe(true);
  });

  it('asks for no more than the caps let start, and the prefetch, when every type it runs is capped', () => {
    const { pool } = poolWith({ concurrency: 10 }, [handler('A', 1), handler('B', 2)]);
    pool.start();
    expect(pool.claimRequest()).toEqual({ types: ['A', 'B'], excludedQueues: [], limit: 3 });
    pool.accept([job('B')], performance.now());
    expect(pool.claimRequest()).toEqual({ types: ['A', 'B'], excludedQueues: [], limit: 2 });
    // A fixed prefetch is buffered on top, as the adaptive one is once capped jobs start quickly.
    const prefetched = poolWith({ concurrency: 10, prefetch: 2 }, [handler('A', 1)]).pool;
    prefetched.start();
    expect(prefetched.claimRequest()?.limit).toBe(3);
    const mixed = poolWith({ concurrency: 10 }, [handler('A', 1), handler('C')]).pool;
    mixed.start();
    expect(mixed.claimRequest()?.limit).toBe(10);
  });

  it('asks for nothing when every type it runs is at its cap', () => {
    const { pool } = poolWith({}, [handler('A', 1)]);
    pool.start();
    pool.accept([job('A')], performance.now());
    expect(pool.claimRequest()).toBeNull();
  });

  it('gives the room of buffered jobs held back by their type’s or queue’s cap to the other types', () => {
    const { pool, executor } = poolWith({ concurrency: 4, prefetch: 2, queueConcurrency: { slow: 1 } }, [handler('A', 1), handler('B')]);
    const end = (j: Job) => executor.running.get(j.id)!({ id: j.id, status: JobStatus.COMPLETED } as FinishRow);
    pool.start();
    const a = [job('A'), job('A'), job('A')];
    pool.accept([...a, job('B', 'slow'), job('B', 'slow')], performance.now());
    expect(pool.stats()).toMatchObject({ running: 2, buffered: 3 });
    expect(pool.claimRequest()).toEqual({ types: ['B'], excludedQueues: ['slow'], limit: 4 });
    expect(pool.wantsRefill()).toBe(true);
    const b = [job('B'), job('B'), job('B')];
    pool.accept(b, performance.now());
    expect(pool.stats()).toMatchObject({ running: 4, buffered: 4 });
    expect(pool.claimRequest()?.limit).toBe(1);
    // The slot of a capped type's job goes to the next of its type; a slot freed by another goes past the held-back.
    end(a[0]);
    expect(pool.stats()).toMatchObject({ running: 4, buffered: 3 });
    end(b[0]);
    expect(pool.stats()).toMatchObject({ running: 4, buffered: 2 });
    expect(pool.claimRequest()?.limit).toBe(2);
  });

  it('counts the room again when a job held back by its cap leaves the buffer unrun (a pause, a cancel, a lost lease)', () => {
    for (const leave of ['pause', 'cancel', 'lost'] as const) {
      const { pool } = poolWith({ concurrency: 2, prefetch: 5 }, [handler('A', 1), handler('B')]);
      pool.start();
      const heldBack = job('A', 'paused');
      // A starts, the second A waits for its cap, the first B takes the other slot and the second waits for a slot.
      pool.accept([job('A'), heldBack, job('B'), job('B')], performance.now());
      expect(pool.claimRequest()?.limit).toBe(4);
      if (leave === 'pause') pool.queuePaused('paused');
      else if (leave === 'cancel') pool.cancelled(heldBack.id, 'tok');
      else pool.markLost([{ id: heldBack.id, token: 'tok' }]);
      // The B still buffered takes its room as before: 2 + 5 - 2 running - 1 buffered.
      expect({ leave, limit: pool.claimRequest()?.limit }).toEqual({ leave, limit: 4 });
    }
  });

  it('excludes a queue at its concurrency cap, counting buffered jobs too', () => {
    const { pool } = poolWith({ concurrency: 10, queueConcurrency: { slow: 1 } }, [handler('A')]);
    pool.start();
    pool.accept([job('A', 'slow')], performance.now());
    expect(pool.claimRequest()).toMatchObject({ excludedQueues: ['slow'] });
    expect(pool.claimWasCapped).toBe(true);
  });

  describe('runsAtOnce (may this instance take its own submission at once)', () => {
    const setup = () => {
      const { pool } = poolWith({ concurrency: 2, prefetch: 1, externalTypes: ['EXT'] }, [handler('A'), handler('EXT')]);
      pool.start();
      return pool;
    };

    it('yes when there is room for the rows beside those reserved, all of types run here', () => {
      expect(setup().runsAtOnce([{ type: 'A' }, { type: 'A' }], 1)).toBe(true);
    });

    it('no when the rows and those reserved exceed the room', () => {
      expect(setup().runsAtOnce([{ type: 'A' }, { type: 'A' }], 2)).toBe(false);
    });

    it('no for a type without a handler here, or one declared external', () => {
      expect(setup().runsAtOnce([{ type: 'OTHER' }], 0)).toBe(false);
      expect(setup().runsAtOnce([{ type: 'EXT' }], 0)).toBe(false);
    });
  });

  describe('freed room', () => {
    it('tells the claim trigger and the change listeners when an attempt ends', () => {
      const { pool, executor, waker } = poolWith({}, [handler('A')]);
      pool.start();
      const changes = jest.fn();
      const off = pool.onChange(changes);
      const j = job('A');
      pool.accept([j], performance.now());
      executor.running.get(j.id)!({ id: j.id, token: 'tok', status: JobStatus.COMPLETED });
      expect(waker.capacityFreed).toHaveBeenCalledTimes(1);
      expect(changes).toHaveBeenCalledTimes(1);
      off();
      const k = job('A');
      pool.accept([k], performance.now());
      executor.running.get(k.id)!(null);
      expect(changes).toHaveBeenCalledTimes(1);
    });

    it('tells the claim trigger when a job it ran goes back to waiting, due after its delay', () => {
      const { pool, executor, completer, waker } = poolWith({}, [handler('A')]);
      pool.start();
      const j = job('A');
      pool.accept([j], performance.now());
      executor.running.get(j.id)!({ id: j.id, token: 'tok', status: JobStatus.RETRYING, delay_ms: 5_000 });
      const written = (completer.add as jest.Mock).mock.calls[0][1] as (written: boolean) => void;
      const before = Date.now();
      written(true);
      const at = waker.jobsDueAt.mock.calls[0][0] as number;
      // By the millisecond after: the write's now() came before this moment, with its microseconds.
      expect(at).toBeGreaterThanOrEqual(before + 5_001);
      expect(at).toBeLessThanOrEqual(Date.now() + 5_001);
    });

    it('tells the claim trigger that a job it handed back at once is due now, without a due time', () => {
      const { pool, executor, completer, waker } = poolWith({}, [handler('A')]);
      pool.start();
      const j = job('A');
      pool.accept([j], performance.now());
      executor.running.get(j.id)!({ id: j.id, token: 'tok', status: JobStatus.PENDING, delay_ms: 0 });
      const written = (completer.add as jest.Mock).mock.calls[0][1] as (written: boolean) => void;
      written(true);
      expect(waker.jobsDueNow).toHaveBeenCalledTimes(1);
      expect(waker.jobsDueAt).not.toHaveBeenCalled();
    });
  });
});

describe('WorkerPool: a cancel notice', () => {
  it('aborts a running attempt with JobCancelledError, and marks it so nothing is written', () => {
    const { pool, executor } = poolWith({ concurrency: 1, prefetch: 1 }, [handler('A')]);
    pool.start();
    const running = job('A');
    const buffered = job('A');
    pool.accept([running, buffered], performance.now());
    expect(pool.cancelled(running.id, 'tok')).toBe(true);
    const held = executor.held.get(running.id)!;
    expect(held.abortReason?.reason).toBeInstanceOf(JobCancelledError);
    expect(held.signal.aborted).toBe(true);
    expect([held.lost, held.cancelled]).toEqual([true, true]);
  });

  it('drops a buffered job unrun', () => {
    const { pool, executor } = poolWith({ concurrency: 1, prefetch: 1 }, [handler('A')]);
    pool.start();
    const running = job('A');
    const buffered = job('A');
    pool.accept([running, buffered], performance.now());
    expect(pool.cancelled(buffered.id, 'tok')).toBe(true);
    expect(pool.stats()).toMatchObject({ running: 1, buffered: 0 });
    executor.running.get(running.id)!(null);
    expect(executor.held.has(buffered.id)).toBe(false);
    expect(pool.heldLeases()).toEqual([]);
  });

  it('ignores a notice for another lease token (the job was claimed again since) or a job it does not hold', () => {
    const { pool, executor } = poolWith({}, [handler('A')]);
    pool.start();
    const j = job('A');
    pool.accept([j], performance.now());
    expect(pool.cancelled(j.id, 'another-token')).toBe(false);
    expect(pool.cancelled('unknown', 'tok')).toBe(false);
    expect(executor.held.get(j.id)!.abortReason).toBeNull();
  });

  it('remembers a notice that overtook its claim, and never starts that job', () => {
    const { pool, executor } = poolWith({}, [handler('A')]);
    pool.start();
    const j = job('A');
    expect(pool.cancelled(j.id, 'tok')).toBe(false);
    pool.accept([j], performance.now());
    expect(executor.held.has(j.id)).toBe(false);
    expect(pool.heldLeases()).toEqual([]);
  });
});

describe('WorkerPool: a pause notice', () => {
  it("hands back the paused queue's buffered jobs unrun, and leaves the running one and other queues' jobs", () => {
    const { pool, executor, completer } = poolWith({ concurrency: 1, prefetch: 3 }, [handler('A')]);
    pool.start();
    const [running, buffered, other] = [job('A', 'q'), job('A', 'q'), job('A', 'other')];
    pool.accept([running, buffered, other], performance.now());
    pool.queuePaused('q');
    expect(pool.stats()).toMatchObject({ running: 1, buffered: 1 });
    const rows = (completer.add as jest.Mock).mock.calls.map(([row]) => row as FinishRow);
    expect(rows).toEqual([expect.objectContaining({ id: buffered.id, status: JobStatus.PENDING, refund: 1 })]);
    expect(executor.held.get(running.id)!.abortReason).toBeNull();
  });

  it('hands back what a claim sent before the notice brings, and keeps what a claim sent after it brings', () => {
    const { pool, completer } = poolWith({ concurrency: 1, prefetch: 3 }, [handler('A')]);
    pool.start();
    const sentBefore = performance.now();
    pool.queuePaused('q');
    const late = job('A', 'q');
    pool.accept([late], sentBefore);
    expect((completer.add as jest.Mock).mock.calls.map(([row]) => (row as FinishRow).id)).toEqual([late.id]);
    // The queue was resumed since: a claim sent after the notice read it so, and its jobs run.
    const resumed = job('A', 'q');
    pool.accept([resumed], performance.now());
    expect(pool.stats()).toMatchObject({ running: 1 });
    expect(completer.add).toHaveBeenCalledTimes(1);
  });
});

describe('WorkerPool: a lease that may lapse while the heartbeat hangs', () => {
  it('aborts the running attempt with LeaseLostError and drops the buffered job once the lease may have lapsed, without a heartbeat answer', async () => {
    const { pool, executor } = poolWith({ concurrency: 1, prefetch: 1, leaseMs: 200, heartbeatIntervalMs: 50 }, [handler('A')]);
    pool.start();
    const running = job('A');
    const buffered = job('A');
    const claimSentAt = performance.now();
    pool.accept([running, buffered], claimSentAt);
    const held = executor.held.get(running.id)!;

    await waitFor(() => held.signal.aborted, { timeoutMs: 2000, intervalMs: 5, message: 'the attempt to be aborted' });
    // Aborted no earlier than the claim's lease less one heartbeat interval, with no heartbeat answered (nor failed).
    expect(performance.now() - claimSentAt).toBeGreaterThanOrEqual(150);
    expect(held.abortReason?.reason).toBeInstanceOf(LeaseLostError);
    expect(held.lost).toBe(true);
    expect(pool.stats()).toMatchObject({ running: 1, buffered: 0 });
    executor.running.get(running.id)!(null);
    expect(pool.heldLeases()).toEqual([]);
  });

  it('keeps a lease a heartbeat extended in time', async () => {
    // Extended every 40 ms, each extension good for 800 ms: a loaded machine's pauses do not let it lapse.
    const { pool, executor } = poolWith({ concurrency: 1, prefetch: 0, leaseMs: 1000, heartbeatIntervalMs: 200 }, [handler('A')]);
    pool.start();
    const running = job('A');
    pool.accept([running], performance.now());
    const held = executor.held.get(running.id)!;
    const started = performance.now();
    await waitFor(
      () => {
        pool.leasesExtended(pool.heldLeases(), performance.now());
        return performance.now() - started > 2000;
      },
      { timeoutMs: 5000, intervalMs: 40 },
    );
    expect(held.signal.aborted).toBe(false);
    executor.running.get(running.id)!(null);
  });
});

describe('WorkerPool: a job claimed again before its lost attempt has ended', () => {
  it('keeps holding the new attempt when the lost one ends', () => {
    const { pool, executor } = poolWith({ concurrency: 2, prefetch: 0 }, [handler('A')]);
    pool.start();
    const first = job('A');
    pool.accept([first], performance.now());
    const endFirst = executor.running.get(first.id)!;
    pool.markLost([{ id: first.id, token: 'tok' }]);
    // Rescued after its lease lapsed and claimed here again under a new token before the lost attempt ended (this
    // executor ends attempts only when told; the real one ends an aborted attempt at once).
    const again = Object.assign(new PlainJob(), { ...first, leaseToken: 'tok-2', attempts: 2 });
    pool.accept([again], performance.now());
    endFirst(null);
    expect(pool.heldLeases()).toEqual([{ id: first.id, token: 'tok-2' }]);
    expect(pool.stats()).toMatchObject({ running: 1 });
  });
});
