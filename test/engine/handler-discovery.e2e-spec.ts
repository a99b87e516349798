import { Injectable } from '@nestjs/common';
import { IsString } from 'class-validator';
import { JobHandler, JobHandlerDefinitionError, JobHandlerHost, JobHandlerOptionsError } from '@conveyor/core';
import { drainQueue } from '@conveyor/core/testing';
import { HandlerRegistry } from '@conveyor/core/handlers/handler-registry.service';
import { createTestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

class GreetPayload {
  @IsString()
  name: string;
}

@JobHandler('GREET', { queue: 'greetings', payload: GreetPayload, concurrency: 2, maxAttempts: 7, timeout: 1234, backoff: { baseMs: 10 } })
class GreetHandler extends JobHandlerHost<GreetPayload> {
  handle(): string {
    return 'hi';
  }
}

@JobHandler('GREET')
class SecondGreetHandler extends JobHandlerHost {
  handle(): string {
    return 'hello';
  }
}

@Injectable()
@JobHandler('NO_HANDLE')
class NoHandleHandler {}

/** Provided by a factory, so its provider's metatype is the factory, not this class. */
@JobHandler('MADE_BY_FACTORY', { queue: 'made' })
class FactoryMadeHandler extends JobHandlerHost {
  constructor(private readonly greeting: string) {
    super();
  }

  handle(): string {
    return this.greeting;
  }
}

/** Provided as a value: its provider has no metatype at all. */
@JobHandler('GIVEN_AS_VALUE')
class GivenHandler extends JobHandlerHost {
  handle(): string {
    return 'given';
  }
}

@JobHandler('IDLE', { concurrency: 0 })
class NeverRunsHandler extends JobHandlerHost {
  handle(): string {
    return 'never';
  }
}

describe('handler discovery', () => {
  let schema: TestSchema;

  beforeAll(async () => {
    schema = await createTestSchema('discovery');
  });
  afterAll(async () => schema?.drop());

  it('registers a decorated provider with its options and the engine defaults', async () => {
    const t = await createTestApp({ schema: schema.schema, providers: [GreetHandler], engine: { runWorkers: false } });
    try {
      const h = t.app.get(HandlerRegistry).get('GREET')!;
      expect(h).toMatchObject({
        type: 'GREET',
        queue: 'greetings',
        concurrency: 2,
        maxAttempts: 7,
        timeoutMs: 1234,
        className: 'GreetHandler',
      });
      expect(h.backoff).toEqual({ baseMs: 10, factor: 2, maxMs: 3_600_000, jitter: 0.5 });
      const job = await t.jobs.enqueue('GREET', { name: 'Ada' });
      expect(job).toMatchObject({ queue: 'greetings', maxAttempts: 7 });
    } finally {
      await t.close();
    }
  });

  it('registers handlers provided by a factory or as a value, once each whatever other tokens name them, and runs their jobs', async () => {
    const given = new GivenHandler();
    const t = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [
        { provide: 'FACTORY_HANDLER', useFactory: () => new FactoryMadeHandler('made') },
        { provide: 'VALUE_HANDLER', useValue: given },
        { provide: 'ALIAS_OF_VALUE', useExisting: 'VALUE_HANDLER' },
        { provide: 'FACTORY_OF_SAME_VALUE', useFactory: (h: GivenHandler) => h, inject: ['VALUE_HANDLER'] },
      ],
    });
    try {
      const registry = t.app.get(HandlerRegistry);
      expect(registry.get('MADE_BY_FACTORY')).toMatchObject({ className: 'FactoryMadeHandler', queue: 'made' });
      expect(registry.get('GIVEN_AS_VALUE')).toMatchObject({ className: 'GivenHandler', instance: given });
      const ids = [(await t.jobs.enqueue('MADE_BY_FACTORY', {})).id, (await t.jobs.enqueue('GIVEN_AS_VALUE', {})).id];
      await drainQueue(t.app, { timeoutMs: 10_000 });
      const { rows } = await t.sql.query(`SELECT type, status, result FROM ${t.jobsTable} WHERE id = ANY($1) ORDER BY type`, [ids]);
      expect(rows).toEqual([
        { type: 'GIVEN_AS_VALUE', status: 'COMPLETED', result: 'given' },
        { type: 'MADE_BY_FACTORY', status: 'COMPLETED', result: 'made' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('fails start-up when two handlers claim one type', async () => {
    await expect(
      createTestApp({ schema: schema.schema, providers: [GreetHandler, SecondGreetHandler], engine: { runWorkers: false } }),
    ).rejects.toThrow(JobHandlerDefinitionError);
    await expect(
      createTestApp({ schema: schema.schema, providers: [GreetHandler, SecondGreetHandler], engine: { runWorkers: false } }),
    ).rejects.toThrow(/Two job handlers claim type "GREET": GreetHandler and SecondGreetHandler/);
  });

  it('fails start-up when a decorated class has no handle method', async () => {
    await expect(createTestApp({ schema: schema.schema, providers: [NoHandleHandler], engine: { runWorkers: false } })).rejects.toThrow(
      /NoHandleHandler is decorated with @JobHandler\('NO_HANDLE'\) but has no handle\(job, context\) method/,
    );
  });

  it('fails start-up when an option is out of range, naming it, rather than leaving its jobs waiting for good', async () => {
    const refused = await createTestApp({ schema: schema.schema, providers: [NeverRunsHandler], engine: { runWorkers: false } }).then(
      (t) => t.close().then(() => null),
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(JobHandlerOptionsError);
    expect(refused).toHaveProperty(
      'message',
      `Invalid job handler option "@JobHandler('IDLE').concurrency": must be an integer between 1 and 10000, got 0`,
    );
  });
});
