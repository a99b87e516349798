import {
  ArgumentsHost,
  Body,
  CanActivate,
  Catch,
  Controller,
  ExceptionFilter,
  ExecutionContext,
  ForbiddenException,
  Get,
  HttpException,
  Injectable,
  Module,
  Post,
  ValidationPipe,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { Interval, ScheduleModule } from '@nestjs/schedule';
import { HealthCheck, HealthCheckResult, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { IsString } from 'class-validator';
import type { Request, Response } from 'express';
import { Job, JobStatus } from '@conveyor/core';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';
import { waitFor } from '../support/wait-for';

/** The host's global guard: a request saying `x-deny` is refused, wherever it goes. */
@Injectable()
class HostGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.switchToHttp().getRequest<Request>().headers['x-deny']) throw new ForbiddenException('denied by the host');
    return true;
  }
}

/** The host's global filter: its own error shape. */
@Catch(HttpException)
class HostFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(exception.getStatus()).json({ hostError: exception.getStatus() });
  }
}

class OrderDto {
  @IsString()
  sku: string;
}

/** The host's own @Interval, run by the ScheduleModule.forRoot() the host imports. */
@Injectable()
class HostTicker {
  ticks = 0;

  @Interval(20)
  tick(): void {
    this.ticks++;
  }
}

@Controller('orders')
class OrdersController {
  constructor(private readonly health: HealthCheckService) {}

  @Post()
  create(@Body() order: OrderDto): { sku: string; dto: boolean } {
    return { sku: order.sku, dto: order instanceof OrderDto };
  }

  @Get('health')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }
}

@Module({
  imports: [ScheduleModule.forRoot(), TerminusModule],
  controllers: [OrdersController],
  providers: [
    HostTicker,
    { provide: APP_GUARD, useClass: HostGuard },
    { provide: APP_FILTER, useClass: HostFilter },
    { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }) },
  ],
})
class HostModule {}

/**
 * A host that brings the usual Nest furniture itself — ScheduleModule.forRoot(), TerminusModule, and its own
 * global guard, filter and pipe — next to the engine and its REST API: nothing clashes, jobs run (from code and
 * over REST, through the host's global pipe and guard), and the host's enhancers keep working on its routes.
 */
describe('a host app with ScheduleModule.forRoot(), TerminusModule and its own APP_GUARD / APP_FILTER / APP_PIPE', () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('embed_host_modules', { imports: [HostModule], nestBodyParser: true });
  });

  afterAll(async () => {
    await t?.close();
  });

  const completes = (id: string) =>
    waitFor(async () => (await t.statusOf(id)) === JobStatus.COMPLETED, { message: `job ${id} to complete` });

  it('the engine works: a job enqueued from code and one submitted over REST complete', async () => {
    const fromCode = await t.jobs.enqueue('TEST_RECORD', {});
    const overRest = (
      await t
        .api()
        .post('/jobs')
        .send({ type: 'TEST_RECORD', payload: { result: 'rest' } })
        .expect(201)
    ).body as Job;
    await completes(fromCode.id);
    await completes(overRest.id);
    const page = (await t.api().get('/jobs?status=COMPLETED&limit=10').expect(200)).body as { items: Job[] };
    expect(page.items.map((j) => j.id)).toEqual(expect.arrayContaining([fromCode.id, overRest.id]));
  });

  it("the host's @Interval runs, and so do its terminus health checks", async () => {
    const ticker = t.app.get(HostTicker);
    const before = ticker.ticks;
    await waitFor(async () => ticker.ticks >= before + 3, { message: 'the host interval to tick' });
    expect((await t.api().get('/orders/health').expect(200)).body).toMatchObject({ status: 'ok' });
    expect((await t.api().get('/health/ready').expect(200)).body).toMatchObject({ status: 'ok' });
  });

  it("the host's pipe, guard and filter work on its routes", async () => {
    expect((await t.api().post('/orders').send({ sku: 'tea' }).expect(201)).body).toEqual({ sku: 'tea', dto: true });
    expect((await t.api().post('/orders').send({ sku: 'tea', extra: 1 }).expect(400)).body).toEqual({ hostError: 400 });
    expect((await t.api().post('/orders').set('x-deny', '1').send({ sku: 'tea' }).expect(403)).body).toEqual({ hostError: 403 });
  });

  it("Conveyor's routes answer in Conveyor's shape; the host's global guard covers them too, as the host chose", async () => {
    expect((await t.api().get('/jobs/not-a-uuid').expect(400)).body).toMatchObject({ statusCode: 400, details: [{ field: 'id' }] });
    expect((await t.api().post('/jobs').send({ type: 'NO_SUCH_TYPE', payload: {} }).expect(400)).body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
    });
    await t.api().get('/queues').set('x-deny', '1').expect(403);
  });

  it("Conveyor's public OpenAPI document lists Conveyor's routes, none of the host's", async () => {
    const doc = (await t.api().get('/docs-json').expect(200)).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/jobs', '/jobs/{id}', '/queues']));
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/orders'))).toEqual([]);
  });
});
