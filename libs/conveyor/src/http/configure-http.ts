import { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { configureExpress } from './configure-express';
import { configureFastify } from './configure-fastify';
import { CONVEYOR_HTTP_MOUNT_PATH } from './conveyor-http.constants';
import { setupApiDocs } from './openapi/setup-api-docs';

/** HTTP settings of the app that hosts the API. */
export interface HttpSettings {
  /** Largest accepted body, in bytes. */
  bodyLimitBytes: number;
  /**
   * Serve the OpenAPI document (Swagger UI at /docs, JSON at /docs-json, under the global prefix and the
   * module's `path`); default true. Set the global prefix before calling configureHttp. On Fastify the
   * Swagger UI needs `@fastify/static`.
   */
  apiDocs?: boolean;
}

/**
 * Security headers (helmet), body parsing with a size limit, and JSON errors for what fails before a
 * controller runs: malformed JSON or a body that is not valid UTF-8 is a 400, an oversized body a 413 (on
 * Express also a malformed URL path, 400, and headers over Node's limit, 431: see configureFastify); and the
 * API documentation at /docs. Works on Express and Fastify (`NestFactory.create(AppModule, new
 * FastifyAdapter(), ...)`); create the app with `{ bodyParser: false }` either way.
 */
export function configureHttp(app: INestApplication, settings: HttpSettings): void {
  const platform = app.getHttpAdapter().getType();
  if (platform === 'fastify') configureFastify(app, settings.bodyLimitBytes);
  else configureExpress(app, settings.bodyLimitBytes);
  if (settings.apiDocs !== false) setupApiDocs(app, mountPathOf(app));
}

/**
 * ConveyorHttpModule's `path` in this app; `''` without one. Looked up rather than asked for with `app.get`,
 * which ends the process when the token is missing (no path, or no ConveyorHttpModule at all).
 */
function mountPathOf(app: INestApplication): string {
  for (const moduleRef of app.get(ModulesContainer).values()) {
    const provider = moduleRef.providers.get(CONVEYOR_HTTP_MOUNT_PATH);
    if (provider) return provider.instance as string;
  }
  return '';
}
