import { DatabaseClock } from '../storage/connections/database-clock.service';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { conveyorDefaults } from '../config/conveyor-defaults';
import { JobStatus } from '../job/job-status';
import { ConveyorDatabase } from '../storage/connections/conveyor-database.service';
import { DatabaseOutages } from '../storage/connections/database-outages.service';
import { WorkerConnection } from '../storage/connections/worker-connection.service';
import { FinishAnswer } from '../storage/statements/finish-answer.codec';
import { FinishRow } from '../storage/statements/finish-row';
import { ClaimTrigger } from './claim-trigger';
import { Completer } from './completer.service';
import { SPEC_TABLES as tables } from '../../../../test/support/sql-tables.fixture';

/** A write the test answers when it wants: the ids it carried, and how to end it. */
interface Write {
  ids: string[];
  answer(which?: number[]): void;
  fail(err: Error): void;
}

/** A completer over a fake worker connection that records every outcome write. */
function completerWith(options: Partial<ConveyorOptions>) {
  const writes: Write[] = [];
  const runner = {
    query: (_text: string, values: unknown[]) =>
      new Promise((resolve, reject) => {
        const ids = parseIds(values[0]);
        writes.push({
          ids,
          answer: (which) =>
            resolve({
              rows: [{ written: which?.length ?? ids.length, which: which ?? null, at_us: '0' } satisfies FinishAnswer],
              rowCount: 1,
            }),
          fail: reject,
        });
      }),
  };
  const trigger = new ClaimTrigger(new DatabaseClock());
  const waker = { capacityFreed: jest.fn(), jobsDueAt: jest.fn(), jobsDueNow: jest.fn(), queriedDatabase: jest.fn() };
  trigger.attach(waker);
  const completer = new Completer(
    { tables } as ConveyorDatabase,
    trigger,
    { ...conveyorDefaults(), ...options },
    {
      runner,
    } as unknown as WorkerConnection,
    new DatabaseOutages(),
  );
  return { completer, writes, waker };
}

/** The ids of a write: its first parameter, a uuid[] in binary or text form (see sql-arrays). */
function parseIds(param: unknown): string[] {
  if (Array.isArray(param)) return param as string[];
  if (typeof param === 'string') return param.replace(/[{}]/g, '').split(',');
  const buf = param as Buffer;
  const count = buf.readInt32BE(12);
  const ids: string[] = [];
  for (let i = 0, at = 20; i < count; i++, at += 20) ids.push(buf.subarray(at + 4, at + 20).toString('hex'));
  return ids;
}

const uuid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const hex = (n: number) => uuid(n).replace(/-/g, '');
const row = (n: number): FinishRow => ({ id: uuid(n), token: uuid(1000 + n), status: JobStatus.COMPLETED });
const idsOf = (w: Write) => w.ids.map((id) => id.replace(/-/g, ''));
const waitUntil = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(cond()).toBe(true);
};

describe('Completer: completion batching', () => {
  it('writes a full batch at once, as one statement', async () => {
    const { completer, writes } = completerWith({ completionBatchSize: 3, completionFlushMs: 60_000 });
    for (let n = 1; n <= 3; n++) completer.add(row(n), () => undefined);
    await waitUntil(() => writes.length === 1);
    expect(idsOf(writes[0])).toEqual([hex(1), hex(2), hex(3)]);
  });

  it('writes a partial batch after completionFlushMs', async () => {
    // Fake timers: on a loaded machine a real 5 ms flush timer could fire before the test's first look.
    jest.useFakeTimers();
    try {
      const { completer, writes } = completerWith({ completionBatchSize: 100, completionFlushMs: 50 });
      completer.add(row(1), () => undefined);
      completer.add(row(2), () => undefined);
      await jest.advanceTimersByTimeAsync(49);
      expect(writes).toHaveLength(0);
      await jest.advanceTimersByTimeAsync(1);
      expect(writes).toHaveLength(1);
      expect(writes[0].ids).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps at most two writes in flight; what arrives meanwhile waits and goes out as one batch', async () => {
    const { completer, writes } = completerWith({ completionBatchSize: 3, completionFlushMs: 1 });
    for (let n = 1; n <= 3; n++) completer.add(row(n), () => undefined);
    await waitUntil(() => writes.length === 1);
    for (let n = 4; n <= 6; n++) completer.add(row(n), () => undefined);
    await waitUntil(() => writes.length === 2);
    completer.add(row(7), () => undefined);
    completer.add(row(8), () => undefined);
    await new Promise((r) => setTimeout(r, 10));
    expect(writes).toHaveLength(2);
    expect(completer.backlog).toBe(2);
    writes[0].answer();
    await waitUntil(() => writes.length === 3);
    expect(idsOf(writes[2])).toEqual([hex(7), hex(8)]);
  });

  it('tells each outcome whether it was written, and the claim trigger that room freed up', async () => {
    const { completer, writes, waker } = completerWith({ completionBatchSize: 3, completionFlushMs: 60_000 });
    const heard: boolean[] = [];
    for (let n = 1; n <= 3; n++) completer.add(row(n), (written) => heard.push(written));
    await waitUntil(() => writes.length === 1);
    writes[0].answer([1, 3]);
    await waitUntil(() => heard.length === 3);
    expect(heard).toEqual([true, false, true]);
    await waitUntil(() => waker.capacityFreed.mock.calls.length === 1);
  });

  it('keeps the outcomes of a write the database could not take, and writes them again', async () => {
    const { completer, writes } = completerWith({ completionBatchSize: 2, completionFlushMs: 1 });
    const heard: boolean[] = [];
    completer.add(row(1), (w) => heard.push(w));
    completer.add(row(2), (w) => heard.push(w));
    await waitUntil(() => writes.length === 1);
    writes[0].fail(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }));
    await waitUntil(() => writes.length === 2);
    expect(idsOf(writes[1])).toEqual([hex(1), hex(2)]);
    writes[1].answer();
    await waitUntil(() => heard.length === 2);
    expect(heard).toEqual([true, true]);
  });
});
