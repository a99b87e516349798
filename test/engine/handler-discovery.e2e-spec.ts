import { Injectable } from '@nestjs/common';
import { IsString } from 'class-validator';
import { JobHandler, JobHandlerDefinitionError, JobHandlerHost, JobHandlerOptionsError } from '@conveyor/core';
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
