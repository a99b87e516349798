/**
 * Thrown when another live process already runs a PostgreSQL server on the data directory. Two
 * servers on one directory would corrupt it, so this is refused rather than worked around.
 */
export class DataDirectoryInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly postmasterPid: number,
  ) {
    super(
      `The PostgreSQL data directory ${dataDir} is in use by a running server (pid ${postmasterPid}) ` +
        'owned by another live process. Stop that process, point this one at another data directory, ' +
        'or connect to the running server with DATABASE_URL.',
    );
    this.name = 'DataDirectoryInUseError';
  }
}
