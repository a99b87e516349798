import { INestApplication, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { CONVEYOR_HTTP_MOUNT_PATH } from '../options/conveyor-http.constants';

/**
 * Tells Conveyor's routes from the host app's by the request path, so that what configureHttp adds (security
 * headers, the JSON body parser and its limit, error answers in the API's shape) reaches only Conveyor's.
 * A path is Conveyor's when it starts with `<global prefix>/<module path>/<root>`, a root being a Conveyor
 * controller's path (`jobs`, `dashboard`...) or, for a controller without one, the first segment of each of its
 * routes (`docs`, `docs-json`). Matched on the raw path, so a path that does not decode is still recognised, and
 * without regard to case, as Express routes.
 *
 * Built from the module's controllers rather than a list, so a controller added to ConveyorHttpModule is covered;
 * read on first use, once the app's global prefix is set.
 */
export class ConveyorRouteMatcher {
  private prefixes?: string[];

  constructor(private readonly app: INestApplication) {}

  /** Whether a request path (query string allowed) is one of Conveyor's routes. */
  matches(url: string): boolean {
    const path = url.split('?', 1)[0].toLowerCase();
    return (this.prefixes ??= this.build()).some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  }

  private build(): string[] {
    // ConveyorHttpModule is the module that provides the mount path, found by that token rather than imported
    // (the module imports this folder).
    const moduleRef = [...this.app.get(ModulesContainer).values()].find((m) => m.providers.has(CONVEYOR_HTTP_MOUNT_PATH));
    if (!moduleRef) return [];
    const mountPath = (moduleRef.providers.get(CONVEYOR_HTTP_MOUNT_PATH)?.instance as string | undefined) ?? '';
    const base = [globalPrefixOf(this.app), mountPath].map(trimSlashes).filter(Boolean).join('/');
    const roots = [...moduleRef.controllers.keys()].flatMap((controller) => rootsOf(controller as Type<unknown>));
    return [...new Set(roots)].map((root) => `/${base ? `${base}/` : ''}${root}`.toLowerCase());
  }
}

/**
 * The app's global prefix. Nest keeps it in the application's config, which it does not expose; @nestjs/swagger
 * reads it the same way.
 */
function globalPrefixOf(app: INestApplication): string {
  return (app as unknown as { config?: { getGlobalPrefix(): string } }).config?.getGlobalPrefix() ?? '';
}

function rootsOf(controller: Type<unknown>): string[] {
  const own = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
  if (own.length > 0) return own;
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter((handler) => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
    .flatMap((handler) => pathsOf(Reflect.getMetadata(PATH_METADATA, handler as object)).map((path) => path.split('/')[0]));
}

function pathsOf(metadata: unknown): string[] {
  const paths = Array.isArray(metadata) ? metadata : [metadata];
  return paths
    .filter((p): p is string => typeof p === 'string')
    .map(trimSlashes)
    .filter(Boolean);
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}
