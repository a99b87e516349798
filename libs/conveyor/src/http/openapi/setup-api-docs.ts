import { INestApplication, Logger } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { HTTP_MESSAGES } from '../http.messages';

/**
 * Where the Swagger UI is served, below the app's global prefix and ConveyorHttpModule's `path`; the JSON
 * document is at `${API_DOCS_PATH}-json` next to it.
 */
export const API_DOCS_PATH = '/docs';

const DESCRIPTION = `Background jobs with the queue in PostgreSQL.

Every error answer is \`{ statusCode, error, message, details? }\`; \`details\` lists \`{ field, problems[] }\` for
validation errors. With API keys configured (\`API_KEYS\`), send \`Authorization: Bearer <key>\`: producer keys
submit and read, admin keys also cancel, retry, purge, pause and resume. Health, metrics, these docs and the
dashboard's page stay open.`;

/**
 * Serves the OpenAPI document built from the controllers' decorators: the Swagger UI at `/docs`, the JSON at
 * `/docs-json`, both under `<global prefix>/<mountPath>` like the API they describe (whose paths the document
 * lists in full). Plain platform routes, so the API-key guard and the rate limit never see them. The document
 * is built on its first request, when every module's routes are known, and kept. On Fastify the Swagger UI's
 * files are served by `@fastify/static` (an optional peer of @nestjs/platform-fastify): without it, only the
 * JSON document is served, and start-up says so.
 */
export function setupApiDocs(app: INestApplication, mountPath = ''): void {
  const ui = app.getHttpAdapter().getType() !== 'fastify' || canServeStaticFiles();
  if (!ui) new Logger('Conveyor:Http').warn(HTTP_MESSAGES.swaggerUiNeedsFastifyStatic);
  const docsPath = `${mountPath ? `/${mountPath}` : ''}${API_DOCS_PATH}`;
  const config = new DocumentBuilder()
    .setTitle('Conveyor API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key from API_KEYS (producer or admin role).' })
    .build();
  SwaggerModule.setup(
    docsPath,
    app,
    () =>
      SwaggerModule.createDocument(app, config, {
        operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
      }),
    // The key typed into Authorize stays in the page (no persistAuthorization: it would sit in localStorage).
    { jsonDocumentUrl: `${docsPath}-json`, raw: ['json'], customSiteTitle: 'Conveyor API', useGlobalPrefix: true, ui },
  );
}

/** Whether `@fastify/static` is installed and loads (it is what Nest's FastifyAdapter serves files with). */
function canServeStaticFiles(): boolean {
  try {
    // Loaded, not only resolved: the adapter would load it at start-up and end the process if it failed.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@fastify/static');
    return true;
  } catch {
    return false;
  }
}
