import { Controller, Get, NotFoundException, Param, Req, Res, StreamableFile } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';
import { Public } from '../access/public.decorator';
import { ApiDocsService } from '../openapi/api-docs.service';
import { API_DOCS_PATH, API_DOCS_TITLE } from '../openapi/api-docs.constants';
import {
  contentTypeOf,
  readSwaggerUiFile,
  SWAGGER_UI_FILES,
  SWAGGER_UI_INIT,
  SWAGGER_UI_INIT_FILE,
  swaggerUiPage,
} from '../openapi/swagger-ui-files';

const DOCS = API_DOCS_PATH.slice(1);

/**
 * The API docs: the Swagger UI at `docs`, its files at `docs/<file>`, the OpenAPI document at `docs-json`. A
 * controller of ConveyorHttpModule, so it sits under the global prefix and the module's path like the API it
 * describes, and is answered through Nest's HTTP adapter: the same on Express and Fastify, with no static-file
 * plugin. Open like the dashboard's files: the document describes routes, it holds no data.
 */
@ApiExcludeController()
@Public()
@ConveyorRoutes()
@Controller()
export class ApiDocsController {
  private readonly files = new Map<string, Buffer>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly docs: ApiDocsService,
  ) {}

  @Get(DOCS)
  page(@Req() req: unknown, @Res() res: unknown): void {
    this.assertEnabled();
    const http = this.adapterHost.httpAdapter;
    const path = (http.getRequestUrl(req) as string).split('?')[0];
    // Every URL in the page is relative to `…/docs`; a proxy that strips or adds a prefix keeps the redirect.
    if (path.endsWith('/')) return void http.redirect(res, 301, `../${DOCS}`);
    this.send(res, Buffer.from(swaggerUiPage(API_DOCS_TITLE)), contentTypeOf('index.html'));
  }

  @Get(`${DOCS}/:file`)
  file(@Param('file') file: string, @Res() res: unknown): void {
    this.assertEnabled();
    if (file === SWAGGER_UI_INIT_FILE) return this.send(res, Buffer.from(SWAGGER_UI_INIT), contentTypeOf(file));
    if (!SWAGGER_UI_FILES.includes(file)) throw new NotFoundException(`No API docs file "${file}".`);
    let content = this.files.get(file);
    if (!content) this.files.set(file, (content = readSwaggerUiFile(file)));
    this.send(res, content, contentTypeOf(file));
  }

  @Get(`${DOCS}-json`)
  json(@Res() res: unknown): void {
    this.assertEnabled();
    this.adapterHost.httpAdapter.reply(res, this.docs.document(), 200);
  }

  private assertEnabled(): void {
    if (!this.docs.enabled) throw new NotFoundException('The API docs are not served (configureHttp with apiDocs: false, or not called).');
  }

  private send(res: unknown, content: Buffer, type: string): void {
    const http = this.adapterHost.httpAdapter;
    http.setHeader(res, 'Cache-Control', 'no-cache');
    http.reply(res, new StreamableFile(content, { type, length: content.length }), 200);
  }
}
