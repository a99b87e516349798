import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Controller, Get, NotFoundException, Param, Req, Res, StreamableFile } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../access/public.decorator';
import { ConveyorRoutes } from '../access/conveyor-routes.decorator';

/** Where the dashboard is served, below the app's global prefix and the module's `path`. */
export const DASHBOARD_PATH = '/dashboard';

/** The static files: next to this file in the sources, copied to dist by `nest build` (nest-cli.json assets). */
const ASSETS_DIR = join(__dirname, '..', 'dashboard', 'assets');

/** Content types of the files the assets folder holds. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The web dashboard: plain HTML, CSS and JavaScript modules that call the REST API from the browser. The
 * files are open, like the health probes: they hold no data, and every data call the page makes carries
 * the API key the user pasted. Scripts and styles are files, never inline, so helmet's default
 * Content-Security-Policy (`script-src 'self'`) needs no exception. Only files that exist in the assets
 * folder at start-up are served, so a request can never reach beyond it; they are answered through Nest's
 * HTTP adapter, so the dashboard works on Express and Fastify alike.
 *
 * Every URL the page uses is relative (`dashboard/app.js` from the page, the API from the scripts' own URL),
 * so it works under any global prefix, module path or reverse-proxy prefix the server never hears of. That
 * holds only for the page's URL without a trailing slash, hence the redirect.
 */
@ApiExcludeController()
@Public()
@ConveyorRoutes()
@Controller(DASHBOARD_PATH)
export class DashboardController {
  private readonly files = new Set(readdirSync(ASSETS_DIR));

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  @Get()
  page(@Req() req: unknown, @Res() res: unknown): void {
    const http = this.adapterHost.httpAdapter;
    const path = (http.getRequestUrl(req) as string).split('?')[0];
    // Relative: a proxy that strips or adds a prefix keeps it.
    if (path.endsWith('/')) return void http.redirect(res, 301, `../${DASHBOARD_PATH.slice(1)}`);
    this.send(res, 'index.html');
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() res: unknown): void {
    if (!this.files.has(file)) throw new NotFoundException(`No dashboard file "${file}".`);
    this.send(res, file);
  }

  private send(res: unknown, file: string): void {
    const http = this.adapterHost.httpAdapter;
    const content = readFileSync(join(ASSETS_DIR, file));
    http.setHeader(res, 'Cache-Control', 'no-cache');
    http.reply(
      res,
      new StreamableFile(content, { type: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', length: content.length }),
      200,
    );
  }
}
