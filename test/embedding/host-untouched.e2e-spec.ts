import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { expectErrorBody } from '../http/support/error-body.assertions';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';

const BODY_LIMIT = 1_024;

/** The host app's own routes, next to Conveyor's. */
@Controller('shop')
class ShopController {
  @Get('items')
  items(): string[] {
    return ['tea'];
  }

  @Post('echo')
  echo(@Body() body: unknown): { received: unknown } {
    return { received: body ?? null };
  }
}

@Module({ controllers: [ShopController] })
class ShopModule {}

const CONVEYOR_HEADERS = ['content-security-policy', 'x-content-type-options', 'strict-transport-security', 'x-frame-options'];

/**
 * configureHttp changes Conveyor's routes only. The host keeps Nest's own body parsers (`bodyParser` on, Nest's
 * default), and its routes get none of Conveyor's security headers, its own body limit and parsing, and its own
 * errors, while Conveyor's routes have helmet's headers, Conveyor's (smaller) body limit and the API's errors.
 */
describe.each(['express', 'fastify'] as const)("a host's own routes on %s are untouched by configureHttp", (platform) => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp(`embed_untouched_${platform}`, {
      platform,
      imports: [ShopModule],
      nestBodyParser: true,
      bodyLimitBytes: BODY_LIMIT,
      engine: { runWorkers: false },
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  it("the host's routes carry no Conveyor security header; Conveyor's routes carry them all", async () => {
    const host = await t.api().get('/shop/items').expect(200);
    for (const header of CONVEYOR_HEADERS) expect({ header, value: host.headers[header] }).toEqual({ header, value: undefined });
    for (const path of ['/health/live', '/jobs', '/dashboard', '/docs', '/docs-json']) {
      const res = await t.api().get(path).expect(200);
      for (const header of CONVEYOR_HEADERS)
        expect({ path, header, set: res.headers[header] !== undefined }).toEqual({ path, header, set: true });
    }
  });

  it("a body over Conveyor's limit is the host's to take on its routes, and a 413 in the API's shape on Conveyor's", async () => {
    const big = { type: 'TEST_RECORD', payload: { text: 'x'.repeat(BODY_LIMIT * 4) } };
    expect((await t.api().post('/shop/echo').send(big).expect(201)).body).toEqual({ received: big });
    expectErrorBody(await t.api().post('/jobs').send(big), 413);
    expect(await t.rows()).toEqual([]);
  });

  it("malformed JSON on a host route is answered by the host's stack, not in Conveyor's shape", async () => {
    const res = await t.api().post('/shop/echo').set('content-type', 'application/json').send('{"broken": ');
    expect(res.status).toBe(400);
    expect(res.body).not.toHaveProperty('details');
    expect(res.body.message).not.toBe('Malformed JSON in request body');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expectErrorBody(await t.api().post('/jobs').set('content-type', 'application/json').send('{"broken": '), 400, ['body']);
  });

  it("a form body reaches a host route through Nest's parser, while Conveyor's routes refuse it with a 415", async () => {
    expect((await t.api().post('/shop/echo').type('form').send('tea=green').expect(201)).body).toEqual({ received: { tea: 'green' } });
    expectErrorBody(await t.api().post('/jobs').type('form').send('type=TEST_RECORD'), 415, ['content-type']);
  });

  it("a host path that does not decode is not answered in Conveyor's shape", async () => {
    const res = await t.api().get('/shop/%E0%A4%A');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body?.details).toBeUndefined();
    expect(res.headers['content-security-policy']).toBeUndefined();
    expectErrorBody(await t.api().get('/jobs/%E0%A4%A'), 400, ['path']);
  });
});
