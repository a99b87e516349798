import type { IncomingMessage, ServerResponse } from 'node:http';
import { Body, Controller, MiddlewareConsumer, Module, NestModule, Post } from '@nestjs/common';
import { createRestTestApp, RestTestApp } from '../http/support/rest-test-app';

type ParsedRequest = IncomingMessage & { _body?: boolean; body?: unknown };

/**
 * A JSON parser as body-parser 1 reads: it skips a request another parser marked `_body`, and reads every other
 * one, answering 500 `stream is not readable` when the body was consumed already (raw-body's check). Nest's own
 * parser is this one with @nestjs/platform-express 11.0.0 and 11.0.1, which Conveyor's peer range allows, and so is
 * a host's `app.use(bodyParser.json())` in an app older than Express 5.
 */
function bodyParserOneJson(req: ParsedRequest, _res: ServerResponse, next: (err?: unknown) => void): void {
  if (req._body || !/json/.test(req.headers['content-type'] ?? '')) return next();
  req._body = true;
  if (!req.readable) return next(Object.assign(new Error('stream is not readable'), { status: 500 }));
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', next);
  req.on('end', () => {
    req.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    next();
  });
}

@Controller('shop')
class ShopController {
  @Post('echo')
  echo(@Body() body: unknown): { received: unknown } {
    return { received: body ?? null };
  }
}

/** The host's body parser, on every route, after configureHttp (module middleware runs after `app.use`). */
@Module({ controllers: [ShopController] })
class HostParserModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(bodyParserOneJson).forRoutes('*');
  }
}

/**
 * Conveyor reads the body of its own routes before any parser of the host's, and marks it read as body-parser 1
 * does, so a host parser of that kind leaves Conveyor's routes alone while still reading the host's.
 */
describe('a host with a body-parser 1 JSON parser after configureHttp', () => {
  let t: RestTestApp;

  beforeAll(async () => {
    t = await createRestTestApp('embed_body_parser_one', { imports: [HostParserModule], engine: { runWorkers: false } });
  });

  afterAll(async () => {
    await t?.close();
  });

  it("takes a job on Conveyor's routes, and the host's parser still reads the host's", async () => {
    const res = await t
      .api()
      .post('/jobs')
      .send({ type: 'TEST_RECORD', payload: { n: 1 } });
    expect({ status: res.status, message: (res.body as { message?: unknown }).message }).toEqual({ status: 201, message: undefined });
    expect(await t.rows('id = $1', [(res.body as { id: string }).id])).toEqual([
      expect.objectContaining({ type: 'TEST_RECORD', payload: { n: 1 } }),
    ]);
    expect((await t.api().post('/shop/echo').send({ tea: 'green' }).expect(201)).body).toEqual({ received: { tea: 'green' } });
  });
});
