import { PlainJob } from '../../job/plain-job';
import { JobStatus } from '../../job/job-status';
import { CLAIMED_COLUMN, CLAIMED_COUNTERS, mapClaimedJobRow } from './claimed-row.codec';
import { mapJobRow } from './job-row.mapper';

/** A value as PostgreSQL's text output writes it (timestamps in ISO form with an offset). */
function pgText(value: unknown): string {
  return value instanceof Date ? value.toISOString().replace('T', ' ').replace('Z', '+00') : String(value);
}

/** The row a claim returns for these column values (see CLAIMED_JOB_COLUMNS), as pg hands it over. */
function claimedRow(values: Record<string, unknown>): unknown[] {
  return Object.keys(CLAIMED_COLUMN).map((c) => (c === 'counters' ? CLAIMED_COUNTERS.map((n) => pgText(values[n])).join(',') : values[c]));
}

const row = {
  id: '01a20ca7-c21d-7000-9761-bb6187be99d2',
  seq: '7',
  queue: 'default',
  type: 'SEND_EMAIL',
  payload: { to: 'a@example.com' },
  status: 'PENDING',
  priority: 0,
  run_at: new Date('2026-11-24T08:00:00Z'),
  attempts: 0,
  max_attempts: 5,
  snoozes: 0,
  last_error: null,
  result: null,
  errors: [],
  idempotency_key: null,
  unique_key: null,
  locked_by: null,
  locked_until: null,
  lease_token: null,
  version: 1,
  created_at: new Date('2026-11-24T07:59:00Z'),
  updated_at: new Date('2026-11-24T07:59:00Z'),
  started_at: null,
  finished_at: null,
  progress: { percent: 40, data: { step: 'sending' } },
};

describe('mapJobRow', () => {
  it('maps the snake_case row to the camelCase job', () => {
    expect(mapJobRow(row)).toEqual({
      id: row.id,
      seq: '7',
      queue: 'default',
      type: 'SEND_EMAIL',
      payload: { to: 'a@example.com' },
      status: JobStatus.PENDING,
      priority: 0,
      runAt: row.run_at,
      attempts: 0,
      maxAttempts: 5,
      snoozes: 0,
      lastError: null,
      result: null,
      errors: [],
      idempotencyKey: null,
      uniqueKey: null,
      lockedBy: null,
      lockedUntil: null,
      leaseToken: null,
      version: 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      startedAt: null,
      finishedAt: null,
      progress: { percent: 40, data: { step: 'sending' } },
    });
  });

  // Constructed, not an object literal: see the mapper's comment (V8 places literals from a busy site in the old generation).
  it('builds a PlainJob', () => {
    expect(mapJobRow(row)).toBeInstanceOf(PlainJob);
  });

  it('fills in what a claim set: running under the worker, the lease from started_at', () => {
    const startedAt = new Date('2026-11-24T08:00:01Z');
    const claimed: Record<string, unknown> = { ...row, attempts: 1, started_at: startedAt };
    const job = mapClaimedJobRow(claimedRow(claimed), { workerId: 'w1', leaseMs: 30_000, token: 'tok' });
    expect(job).toMatchObject({
      id: row.id,
      seq: '7',
      queue: 'default',
      type: 'SEND_EMAIL',
      payload: row.payload,
      status: JobStatus.RUNNING,
      runAt: row.run_at,
      maxAttempts: 5,
      leaseToken: 'tok',
      version: 1,
      createdAt: row.created_at,
      lockedBy: 'w1',
      updatedAt: startedAt,
      startedAt,
      attempts: 1,
      result: null,
      errors: [],
      finishedAt: null,
      // A claim starts a new attempt, which has reported nothing yet (claimSet clears it).
      progress: null,
    });
    expect(job.lockedUntil).toEqual(new Date(startedAt.getTime() + 30_000));
  });

  it('takes created_at from run_at when the claim left it out (the two were equal)', () => {
    const claimed: Record<string, unknown> = { ...row, created_at: null, started_at: new Date() };
    const job = mapClaimedJobRow(claimedRow(claimed), { workerId: 'w1', leaseMs: 30_000, token: 'tok' });
    expect(job.createdAt).toEqual(row.run_at);
    expect(job.createdAt).not.toBe(job.runAt);
  });
});
