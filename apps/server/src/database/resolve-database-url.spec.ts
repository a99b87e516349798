import { join } from 'node:path';
import { loadAppConfig } from '../config/app-config';
import { embeddedServerOptions } from './resolve-database-url';

describe('embeddedServerOptions', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('takes an empty CONVEYOR_DATA_DIR and EMBEDDED_PG_PORT as unset, as every other setting (not the working directory)', () => {
    // A compose file's `CONVEYOR_DATA_DIR=${DATA_DIR}` with DATA_DIR unset.
    process.env.CONVEYOR_DATA_DIR = '';
    process.env.EMBEDDED_PG_PORT = '';
    const options = embeddedServerOptions(loadAppConfig(process.env).app, () => undefined);
    expect(options).toMatchObject({ dataDir: join(process.cwd(), '.conveyor', 'pgdata'), port: 54329 });
  });

  it('uses the data folder and port the environment names', () => {
    process.env.CONVEYOR_DATA_DIR = '/srv/conveyor/pgdata';
    process.env.EMBEDDED_PG_PORT = '55432';
    expect(embeddedServerOptions(loadAppConfig(process.env).app, () => undefined)).toMatchObject({
      dataDir: '/srv/conveyor/pgdata',
      port: 55432,
    });
  });
});
