import { randomBytes } from 'node:crypto';
import { Controller, Get, Module, NotFoundException, Post, UseFilters } from '@nestjs/common';
import { JobsService } from '@conveyor/core';
import { ConveyorExceptionFilter } from '@conveyor/core/http';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';

const ADMIN = `admin-${randomBytes(16).toString('hex')}`;
const LIMIT = 5;

/** The host app's own routes, next to Conveyor's. */
@Controller('shop')
class ShopController {
  @Get('items')
  items(): string[] {
    return ['tea'];
  }

  @Get('missing')
  missing(): never {
    throw new NotFoundException('No such item');
  }

  @Get('broken')
  broken(): never {
    throw new Error('the host broke');
  }
}

/** The host's routes that enqueue: one as the package README shows, with Conveyor's filter, one without. */
@Controller('orders')
class OrdersController {
  constructor(private readonly jobs: JobsService) {}

  @Post('filtered')
  @UseFilters(ConveyorExceptionFilter)
  async filtered(): Promise<void> {
    await this.jobs.enqueue('NO_SUCH_JOB', {});
  }

  @Post('plain')
  async plain(): Promise<void> {
    await this.jobs.enqueue('NO_SUCH_JOB', {});
  }
}

@Module({ controllers: [ShopController, OrdersController] })
class ShopModule {}

/**
 * Conveyor's API keys, rate limit and error format are Conveyor's own: with keys and a tight limit configured
 * through ConveyorHttpModule.forRoot, the host's routes need no key, are never limited and answer errors in
 * Nest's default shape, while Conveyor's routes still demand a key, count requests and answer in theirs.
 */
describe("a host app's own routes next to Conveyor's", () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('embed_host_routes', {
      imports: [ShopModule],
      httpOptions: { apiKeys: [{ role: 'admin', key: ADMIN }], rateLimit: { windowMs: 60_000, max: LIMIT } },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('need no API key and are never rate-limited', async () => {
    for (let i = 0; i < LIMIT * 3; i++) {
      expect((await t.api().get('/shop/items').expect(200)).body).toEqual(['tea']);
    }
  });

  it("keep Nest's default error shape", async () => {
    expect((await t.api().get('/shop/missing').expect(404)).body).toEqual({ statusCode: 404, error: 'Not Found', message: 'No such item' });
    expect(Object.keys((await t.api().get('/shop/missing')).body)).toEqual(['message', 'error', 'statusCode']);
    expect((await t.api().get('/shop/broken').expect(500)).body).toEqual({ statusCode: 500, message: 'Internal server error' });
    expect((await t.api().get('/shop/nowhere').expect(404)).body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Cannot GET /shop/nowhere',
    });
  });

  it("a refused enqueue in the host's route is a 400 naming the field with Conveyor's filter, a 500 without", async () => {
    const refused = await t.api().post('/orders/filtered').expect(400);
    expect(refused.body).toMatchObject({ statusCode: 400, error: 'Bad Request', details: [{ field: 'type' }] });
    await t.api().post('/orders/plain').expect(500);
  });

  it("Conveyor's routes still need a key, answer in Conveyor's shape and are limited", async () => {
    const refused = await t.api().get('/jobs').expect(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(Object.keys(refused.body)).toEqual(['statusCode', 'error', 'message']);
    const invalid = await t.api().get('/jobs/not-a-uuid').set('Authorization', `Bearer ${ADMIN}`).expect(400);
    expect(invalid.body).toMatchObject({ statusCode: 400, error: 'Bad Request', details: [{ field: 'id' }] });
    // Counted per key: one request with the key so far; the rest of the window, then one too many.
    for (let i = 1; i < LIMIT; i++) await t.api().get('/jobs').set('Authorization', `Bearer ${ADMIN}`).expect(200);
    const limited = await t.api().get('/jobs').set('Authorization', `Bearer ${ADMIN}`).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    // Still nothing for the host's routes.
    await t.api().get('/shop/items').expect(200);
  });
});
