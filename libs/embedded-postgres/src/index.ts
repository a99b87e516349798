export { DataDirectoryInUseError } from './data-directory-in-use.error';
export type { EmbeddedPostgresHandle } from './embedded-postgres-handle.interface';
export type { EmbeddedPostgresOptions } from './embedded-postgres-options.interface';
export { EmbeddedPostgresNotInstalledError } from './embedded-postgres-not-installed.error';
export { EmbeddedPostgresStartError } from './embedded-postgres-start.error';
export { findFreePort, isPortFree } from './free-port';
export { startEmbeddedPostgres } from './start-embedded-postgres';
