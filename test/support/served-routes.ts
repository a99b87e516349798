import { INestApplication } from '@nestjs/common';

/** One route the app's Express router answers. */
export interface ServedRoute {
  /** Upper case: GET, POST, ... */
  method: string;
  /** Express path syntax: `/jobs/:id`. */
  path: string;
}

interface RouterLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/**
 * Every route the running app serves, read from the Express router's stack (Express 5: `app.router`) —
 * what Nest registered for its controllers plus any route added straight on the adapter. Middleware
 * (static files, body parsing) has no `route` and is not listed.
 */
export function servedRoutes(app: INestApplication): ServedRoute[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: RouterLayer[] }; _router?: { stack: RouterLayer[] } };
  const stack = (express.router ?? express._router)?.stack ?? [];
  const routes: ServedRoute[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
      for (const path of paths) routes.push({ method: method.toUpperCase(), path });
    }
  }
  return routes;
}

/** `/jobs/:id` → `/jobs/{id}`, the OpenAPI spelling. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
