import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../public.decorator';

/** Where the dashboard is served. */
export const DASHBOARD_PATH = '/dashboard';

/** The static files: next to this file in the sources, copied to dist by `nest build` (nest-cli.json assets). */
const ASSETS_DIR = join(__dirname, 'assets');

/**
 * The web dashboard: plain HTML, CSS and JavaScript modules that call the REST API from the browser. The
 * files are open, like the health probes: they hold no data, and every data call the page makes carries
 * the API key the user pasted. Scripts and styles are files, never inline, so helmet's default
 * Content-Security-Policy (`script-src 'self'`) needs no exception. Only files that exist in the assets
 * folder at start-up are served, so a request can never reach beyond it.
 */
@ApiExcludeController()
@Public()
@Controller(DASHBOARD_PATH)
export class DashboardController {
  private readonly files = new Set(readdirSync(ASSETS_DIR));

  @Get()
  @Header('Cache-Control', 'no-cache')
  page(@Res() res: Response): void {
    res.sendFile('index.html', { root: ASSETS_DIR });
  }

  @Get(':file')
  @Header('Cache-Control', 'no-cache')
  asset(@Param('file') file: string, @Res() res: Response): void {
    if (!this.files.has(file)) throw new NotFoundException(`No dashboard file "${file}".`);
    res.sendFile(file, { root: ASSETS_DIR });
  }
}
