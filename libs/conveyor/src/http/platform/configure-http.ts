import { INestApplication } from '@nestjs/common';
import { configureExpress } from './configure-express';
import { configureFastify } from './configure-fastify';
import { checkHttpSettings, HttpSettings } from './http-settings';
import { setupApiDocs } from '../openapi/setup-api-docs';

/**
 * What Conveyor's routes need from the HTTP platform, on its routes only — the host app's routes keep their own
 * headers, body parsing, limits and error format: security headers (helmet); a JSON body parser with Conveyor's
 * size limit, run before any parser of the host's or Nest's; answers in the API's error shape for what fails
 * before a controller runs (malformed JSON or UTF-8, 400; a body over the limit, 413; a body that is not JSON, in
 * another charset or an unknown encoding, 415; a URL path that does not decode, 400); and the API docs at /docs.
 * What Node's HTTP parser refuses (headers over its limit, 431; a malformed request, 400) belongs to no route
 * and is answered in the API's shape for the whole server. Works alike on Express and Fastify
 * (`NestFactory.create(AppModule, new FastifyAdapter(), ...)`). Call it before `app.listen()` or `app.init()`,
 * after `app.setGlobalPrefix()`. Throws ConveyorConfigError for a bad setting.
 */
export function configureHttp(app: INestApplication, settings: HttpSettings): void {
  checkHttpSettings(settings);
  const platform = app.getHttpAdapter().getType();
  if (platform === 'fastify') configureFastify(app, settings.bodyLimitBytes);
  else configureExpress(app, settings.bodyLimitBytes);
  if (settings.apiDocs !== false) setupApiDocs(app);
}
