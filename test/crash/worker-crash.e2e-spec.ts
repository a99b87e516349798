import { JobStatus } from '@conveyor/core';
import { MaintenanceService } from '@conveyor/core/maintenance/maintenance.service';
import { countByStatus, invocationStats } from '../support/job-queries';
import { invocationsTable } from '../support/recording-handler';
import type { TestApp } from '../support/test-app';
import type { TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';
import { CRASH_ENGINE, CrashControl, startCrashControl } from './support/crash-control';

/**
 * Crash tests with real processes: a worker is SIGKILLed mid-drain; the maintenance leader is killed;
 * poison jobs sit among healthy ones. The recovery times printed here go into the issue notes.
 */
describe('crashes', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let crash: CrashControl;
  let control: TestApp;
  const workers: SpawnedWorker[] = [];

  const start = async (name: string, engine: object = {}) => {
    const w = spawnWorker({ url, schema: schema.schema, engine: { ...CRASH_ENGINE, workerId: name, ...engine }, appName: name });
    workers.push(w);
    await w.ready;
    return w;
  };
  const stopAll = async () => {
    for (const w of workers.splice(0)) {
      if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGTERM');
      await w.exited;
    }
  };
  const insert = async (n: number, payload: object, extra = ''): Promise<void> => {
    await control.sql.query(
      `INSERT INTO ${control.jobsTable} (type, payload${extra ? ', max_attempts' : ''})
       SELECT 'TEST_RECORD', $1::jsonb${extra ? `, ${extra}` : ''} FROM generate_series(1, $2)`,
      [JSON.stringify(payload), n],
    );
  };

  beforeAll(async () => {
    crash = await startCrashControl('crash');
    ({ schema, control } = crash);
  });

  afterEach(async () => {
    await stopAll();
    await control.sql.query(`TRUNCATE ${control.jobsTable}, ${invocationsTable(schema.schema)}`);
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await crash?.close();
  });

  it('SIGKILL of one of three workers mid-drain: all 5,000 jobs complete, duplicates bounded by what it held', async () => {
    await insert(4500, {});
    await insert(500, { sleepMs: 200 });
    const [victim] = [await start('crash-victim'), await start('crash-b'), await start('crash-c')];
    await waitFor(async () => ((await countByStatus(control.sql, schema.schema)).COMPLETED ?? 0) >= 1500, { timeoutMs: 60_000 });

    victim.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    // What the dead worker held: rows still RUNNING under its name. Those are the only ones that may run twice.
    const { rows: heldRows } = await control.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${control.jobsTable} WHERE status = 'RUNNING' AND locked_by = 'crash-victim'`,
    );
    const held = heldRows[0].n;
    await waitFor(
      async () => {
        const { rows } = await control.sql.query(
          `SELECT count(*)::int AS n FROM ${control.jobsTable} WHERE status = 'RUNNING' AND locked_by = 'crash-victim'`,
        );
        return rows[0].n === 0;
      },
      { timeoutMs: 30_000, message: "the dead worker's jobs to be rescued" },
    );
    const rescueMs = Date.now() - killedAt;
    await waitFor(async () => ((await countByStatus(control.sql, schema.schema)).COMPLETED ?? 0) === 5000, {
      timeoutMs: 120_000,
      message: 'all 5,000 jobs to complete',
    });
    const drainedMs = Date.now() - killedAt;

    const stats = await invocationStats(control.sql, schema.schema);
    expect(stats.distinct).toBe(5000);
    const duplicates = stats.total - stats.distinct;
    expect(duplicates).toBeLessThanOrEqual(held);
    expect(stats.maxPerJob).toBeLessThanOrEqual(2);
    console.log(
      `SIGKILL recovery: held ${held}, duplicates ${duplicates}, rescued within ${rescueMs} ms, drained ${drainedMs} ms after the kill`,
    );
  }, 180_000);

  it('when the maintenance leader is killed, another instance takes over the sweep', async () => {
    // The control app must not compete for leadership here: its maintenance stops (and resigns) until the test ends.
    const controlMaintenance = control.app.get(MaintenanceService);
    await controlMaintenance.stop();

    await start('leader-a');
    await start('leader-b');
    const leaderName = async (): Promise<string | null> => {
      const { rows } = await control.sql.query<{ holder: string }>(
        `SELECT holder FROM ${schema.schema}.conveyor_leadership WHERE expires_at > now()`,
      );
      return rows[0]?.holder ?? null;
    };
    const first = await waitFor(leaderName, { message: 'one worker to lead' });
    const victim = workers.find((w) => first === (w === workers[0] ? 'leader-a' : 'leader-b'))!;
    victim.proc.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();

    // A job whose lease ran out must still be rescued: only a leader sweeps.
    const { rows } = await control.sql.query<{ id: string }>(
      `INSERT INTO ${control.jobsTable} (type, payload, status, attempts, locked_by, locked_until, lease_token)
       VALUES ('TEST_RECORD', '{}', 'RUNNING', 1, 'ghost', now() - interval '1 second', gen_random_uuid()) RETURNING id`,
    );
    const second = await waitFor(
      async () => {
        const name = await leaderName();
        return name && name !== first ? name : null;
      },
      { timeoutMs: 20_000, message: 'another worker to take over leadership' },
    );
    const takeoverMs = Date.now() - killedAt;
    const job = await waitFor(
      async () => {
        const j = await control.jobs.get(rows[0].id);
        return j.status === JobStatus.COMPLETED ? j : null;
      },
      { timeoutMs: 20_000, message: 'the ghost job to be rescued and run' },
    );
    expect(second).not.toBe(first);
    expect(job.errors.map((e) => e.kind)).toEqual(['lease-expired']);
    expect(job.errors[0].worker).toBe('ghost');
    console.log(`leader failover: ${second} took over ${takeoverMs} ms after ${first} was killed`);
    controlMaintenance.start();
  });

  it('a frozen leader (alive but stopped) loses leadership to another instance', async () => {
    const controlMaintenance = control.app.get(MaintenanceService);
    await controlMaintenance.stop();
    const a = await start('frozen-a');
    const b = await start('frozen-b');
    const leaderName = async (): Promise<string | null> => {
      const { rows } = await control.sql.query<{ holder: string }>(
        `SELECT holder FROM ${schema.schema}.conveyor_leadership WHERE expires_at > now()`,
      );
      return rows[0]?.holder ?? null;
    };
    const first = await waitFor(leaderName, { message: 'one worker to lead' });
    const frozen = first === 'frozen-a' ? a : b;
    frozen.proc.kill('SIGSTOP');
    const frozenAt = Date.now();
    try {
      const second = await waitFor(
        async () => {
          const name = await leaderName();
          return name && name !== first ? name : null;
        },
        { timeoutMs: 20_000, message: "the frozen leader's term to run out" },
      );
      console.log(`frozen leader: ${second} took over ${Date.now() - frozenAt} ms after ${first} froze`);
    } finally {
      frozen.proc.kill('SIGCONT');
      controlMaintenance.start();
    }
  });

  it('poison jobs go DEAD with their history while 1,000 healthy jobs flow through', async () => {
    await insert(1000, {});
    const { rows: poison } = await control.sql.query<{ id: string; payload: { alwaysFail?: boolean } }>(
      `INSERT INTO ${control.jobsTable} (type, payload, max_attempts) VALUES
         ('TEST_RECORD', '{"alwaysFail": true}', 3),
         ('TEST_RECORD', '{"hang": true}', 2)
       RETURNING id, payload`,
    );
    await start('poison-a', { defaultTimeoutMs: 300 });
    await start('poison-b', { defaultTimeoutMs: 300 });
    await waitFor(async () => ((await countByStatus(control.sql, schema.schema)).COMPLETED ?? 0) === 1000, {
      timeoutMs: 60_000,
      message: 'the healthy jobs to complete',
    });
    for (const p of poison) {
      const dead = await waitFor(
        async () => {
          const j = await control.jobs.get(p.id);
          return j.status === JobStatus.DEAD ? j : null;
        },
        { timeoutMs: 30_000, message: `poison job ${JSON.stringify(p.payload)} to die` },
      );
      expect(dead.errors).toHaveLength(dead.maxAttempts);
      expect(dead.errors.every((e) => e.kind === (p.payload.alwaysFail ? 'failed' : 'timeout'))).toBe(true);
      expect(dead.lastError).toBeTruthy();
    }
  });
});
