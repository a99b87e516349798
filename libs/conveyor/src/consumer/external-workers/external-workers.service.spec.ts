import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { conveyorDefaults } from '../../config/conveyor-defaults';
import { ConveyorOptions } from '../../config/conveyor-options.interface';
import { HandlerRegistry } from '../../handlers/handler-registry.service';
import { Job } from '../../job/job';
import { JobStatus } from '../../job/job-status';
import { PlainJob } from '../../job/plain-job';
import { ConveyorEvents } from '../../observation/events/conveyor-events.service';
import { LivePublisher } from '../../observation/live/live-publisher.service';
import { ConveyorDatabase } from '../../storage/connections/conveyor-database.service';
import { ClaimStrategy } from '../claiming/claim-strategy.interface';
import { ExternalWorkers, MAX_CLAIM_ANSWER_PAYLOAD_CHARS } from './external-workers.service';
import { SPEC_TABLES as tables } from '../../../../../test/support/sql-tables.fixture';

function job(id: string, payload: unknown): Job {
  return Object.assign(new PlainJob(), {
    id,
    queue: 'q',
    type: 'EXT',
    payload,
    status: JobStatus.RUNNING,
    runAt: new Date(),
    attempts: 1,
    maxAttempts: 3,
    snoozes: 0,
    errors: [],
    leaseToken: randomUUID(),
    lockedBy: 'ext-1',
  });
}

/** External workers over a claim that takes `claimed` and a pool whose every statement gets `answer`. */
function workersWith(claimed: Job[], answer: () => Promise<unknown>) {
  const options: ConveyorOptions = { ...conveyorDefaults(), externalTypes: ['EXT'] };
  const strategy = {
    claim: () => Promise.resolve({ jobs: claimed, lostEveryRound: false, startedAtUs: () => new Map<string, string>() }),
  } as unknown as ClaimStrategy;
  const query = jest.fn(answer);
  const db = { tables, pool: { query } } as unknown as ConveyorDatabase;
  const events = new ConveyorEvents();
  const live = { watching: false } as unknown as LivePublisher;
  const workers = new ExternalWorkers(options, strategy, db, {} as HandlerRegistry, events, live);
  return { workers, query, events };
}

describe('ExternalWorkers.claim', () => {
  // Two jobs whose payloads together are past one answer: the first fits, the second is handed back.
  const half = 'x'.repeat(MAX_CLAIM_ANSWER_PAYLOAD_CHARS / 2 + 1);
  const [a, b] = [randomUUID(), randomUUID()];
  let warnings: string[];

  beforeEach(() => {
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  });

  afterEach(() => jest.restoreAllMocks());

  it('hands back the jobs past the answer, counted as hand-backs, and answers the others', async () => {
    const { workers, query, events } = workersWith([job(a, half), job(b, half)], () =>
      Promise.resolve({ rows: [{ written: 1, which: null, at_us: '0' }], rowCount: 1 }),
    );
    const finished: string[][] = [];
    events.on('finished', (j, status, _ms, outcome) => finished.push([j.id, status, outcome]));
    const jobs = await workers.claim('q', { workerId: 'ext-1', max: 2 });
    expect(jobs.map((j) => j.id)).toEqual([a]);
    expect(query).toHaveBeenCalledTimes(1);
    expect(finished).toEqual([[b, JobStatus.PENDING, 'handed_back']]);
    expect(warnings).toEqual([]);
  });

  it('still answers the jobs that fit when the hand-back of the others fails, and counts them claimed and started', async () => {
    const { workers, events } = workersWith([job(a, half), job(b, half)], () => Promise.reject(new Error('connection lost')));
    const claimedEvents: string[][] = [];
    const started: string[] = [];
    const finished: string[] = [];
    events.on('claimed', (jobs) => claimedEvents.push(jobs.map((j) => j.id)));
    events.on('started', (j) => started.push(j.id));
    events.on('finished', (j) => finished.push(j.id));
    const jobs = await workers.claim('q', { workerId: 'ext-1', max: 2 });
    expect(jobs.map((j) => j.id)).toEqual([a]);
    expect(claimedEvents).toEqual([[a]]);
    expect(started).toEqual([a]);
    // Not handed back: no hand-back to count.
    expect(finished).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining('connection lost')]);
  });
});
