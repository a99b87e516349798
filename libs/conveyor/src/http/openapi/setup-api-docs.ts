import { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { API_DOCS_TITLE } from './api-docs.constants';
import { ApiDocsService } from './api-docs.service';

export { API_DOCS_PATH } from './api-docs.constants';

const DESCRIPTION = `Background jobs with the queue in PostgreSQL.

Every error answer is \`{ statusCode, error, message, details? }\`; \`details\` lists \`{ field, problems[] }\` for
validation errors. With API keys configured (\`API_KEYS\`), send \`Authorization: Bearer <key>\`: producer keys
submit and read, worker keys also claim and report jobs, admin keys also cancel, retry, purge, pause and resume
(each operation names its role in \`x-required-role\`). Health, metrics, these docs and the dashboard's page stay
open.`;

/**
 * Turns on the API docs that ConveyorHttpModule serves (ApiDocsController): the Swagger UI at `/docs`, the JSON
 * at `/docs-json`, both under `<global prefix>/<module path>` like the API they describe, whose paths the document
 * lists in full, and no route of the host app's. Does nothing in an app without ConveyorHttpModule.
 */
export function setupApiDocs(app: INestApplication): void {
  const found = findApiDocs(app);
  if (!found) return;
  const { docs, module } = found;
  const config = new DocumentBuilder()
    .setTitle(API_DOCS_TITLE)
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key from API_KEYS (producer, worker or admin role).' })
    .build();
  docs.enable(() =>
    SwaggerModule.createDocument(app, config, {
      // Conveyor's routes only: the document is public, and a host's own routes are not Conveyor's to publish.
      include: [module],
      operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
    }),
  );
}

/**
 * The docs service and the module that provides it (ConveyorHttpModule, whose controllers the document lists).
 * Looked up rather than asked for with `app.get`, which fails when the app has no ConveyorHttpModule.
 */
function findApiDocs(app: INestApplication): { docs: ApiDocsService; module: Type } | undefined {
  for (const moduleRef of app.get(ModulesContainer).values()) {
    const provider = moduleRef.providers.get(ApiDocsService);
    if (provider) return { docs: provider.instance as ApiDocsService, module: moduleRef.metatype };
  }
  return undefined;
}
