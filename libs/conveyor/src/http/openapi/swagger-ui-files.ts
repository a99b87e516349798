import { readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';

/**
 * The Swagger UI: swagger-ui-dist's files (a dependency of @nestjs/swagger, resolved from there so that a strict
 * package layout finds it too), and the page and start-up script Conveyor writes around them. Every URL in them is
 * relative to the page at `…/docs` (no trailing slash): the files at `docs/<file>`, the document at `docs-json`,
 * so the UI works under any global prefix, module path or proxy prefix, like the dashboard.
 */
export const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
];

/** Conveyor's own script: a file rather than inline, so helmet's Content-Security-Policy needs no exception. */
export const SWAGGER_UI_INIT_FILE = 'swagger-ui-init.js';

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

export function swaggerUiPage(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-ui-standalone-preset.js"></script>
  <script src="docs/${SWAGGER_UI_INIT_FILE}"></script>
</body>
</html>
`;
}

/** The key typed into Authorize stays in the page (no persistAuthorization: it would sit in localStorage). */
export const SWAGGER_UI_INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'docs-json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
});
`;

let distDir: string | undefined;

/** One of SWAGGER_UI_FILES, read from swagger-ui-dist. */
export function readSwaggerUiFile(file: string): Buffer {
  distDir ??= dirname(require.resolve('swagger-ui-dist/package.json', { paths: [dirname(require.resolve('@nestjs/swagger'))] }));
  return readFileSync(join(distDir, file));
}

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
}
