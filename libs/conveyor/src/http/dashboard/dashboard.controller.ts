import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../public.decorator';
import { ConveyorRoutes } from '../conveyor-routes.decorator';

/** Where the dashboard is served, below the app's global prefix and the module's `path`. */
export const DASHBOARD_PATH = '/dashboard';

/** The static files: next to this file in the sources, copied to dist by `nest build` (nest-cli.json assets). */
const ASSETS_DIR = join(__dirname, 'assets');

/**
 * The web dashboard: plain HTML, CSS and JavaScript modules that call the REST API from the browser. The
 * files are open, like the health probes: they hold no data, and every data call the page makes carries
 * the API key the user pasted. Scripts and styles are files, never inline, so helmet's default
 * Content-Security-Policy (`script-src 'self'`) needs no exception. Only files that exist in the assets
 * folder at start-up are served, so a request can never reach beyond it.
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

  @Get()
  @Header('Cache-Control', 'no-cache')
  page(@Req() req: Request, @Res() res: Response): void {
    // Relative: a proxy that strips or adds a prefix keeps it.
    if (req.path.endsWith('/')) return res.redirect(301, `../${DASHBOARD_PATH.slice(1)}`);
    res.sendFile('index.html', { root: ASSETS_DIR });
  }

  @Get(':file')
  @Header('Cache-Control', 'no-cache')
  asset(@Param('file') file: string, @Res() res: Response): void {
    if (!this.files.has(file)) throw new NotFoundException(`No dashboard file "${file}".`);
    res.sendFile(file, { root: ASSETS_DIR });
  }
}
