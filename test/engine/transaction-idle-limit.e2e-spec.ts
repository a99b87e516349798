import { Client } from 'pg';
import { TRANSACTION_BEGIN_SQL, TRANSACTION_IDLE_LIMIT_MS } from '@conveyor/core/storage/connections/transaction-begin';

/** The limit each of the engine's transactions runs under, by the session's own setting before it began. */
describe('TRANSACTION_BEGIN_SQL', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL });
    await client.connect();
  });

  afterAll(() => client?.end());

  const limitInTransaction = async (sessionSetting: string): Promise<string> => {
    await client.query(`SET idle_in_transaction_session_timeout = '${sessionSetting}'`);
    await client.query(TRANSACTION_BEGIN_SQL);
    const { rows } = await client.query<{ ms: string }>(
      `SELECT setting AS ms FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout'`,
    );
    await client.query('ROLLBACK');
    return rows[0].ms;
  };

  it('sets the engine’s limit where none is set, or a longer one', async () => {
    expect(await limitInTransaction('0')).toBe(String(TRANSACTION_IDLE_LIMIT_MS));
    expect(await limitInTransaction('10min')).toBe(String(TRANSACTION_IDLE_LIMIT_MS));
  });

  it('keeps a shorter limit set for the role or the server', async () => {
    expect(await limitInTransaction('3s')).toBe('3000');
  });

  it('leaves nothing on the session after the transaction', async () => {
    await limitInTransaction('0');
    const { rows } = await client.query<{ ms: string }>(
      `SELECT setting AS ms FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout'`,
    );
    expect(rows[0].ms).toBe('0');
  });
});
