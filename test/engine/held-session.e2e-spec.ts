import { Client } from 'pg';
import { heldSessionSql, HELD_SESSION_SQL } from '@conveyor/core/storage/connections/held-session';

/** The settings the engine gives each connection it holds for its whole life (worker, LISTEN). */
describe('held sessions', () => {
  let client: Client;
  const setting = async (name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0][name];

  beforeEach(async () => {
    client = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
    await client.connect();
    await client.query("SET idle_session_timeout = '5s'");
  });

  afterEach(() => client.end());

  it('turn the idle limit off and check for a closed client every second', async () => {
    await client.query(HELD_SESSION_SQL);
    expect(await setting('idle_session_timeout')).toBe('0');
    expect(await setting('client_connection_check_interval')).toBe('1s');
  });

  it('leave the check off where the server refuses it (Windows refuses any value but 0), and still turn the idle limit off', async () => {
    await client.query(heldSessionSql(-1));
    expect(await setting('idle_session_timeout')).toBe('0');
    expect(await setting('client_connection_check_interval')).toBe('0');
  });
});
