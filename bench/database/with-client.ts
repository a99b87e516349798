import { Client } from 'pg';

/** Runs `work` on a connection of its own, opened for it and closed after it (`applicationName` tags it). */
export async function withClient<T>(url: string, work: (c: Client) => Promise<T>, applicationName = 'bench-runner'): Promise<T> {
  const client = new Client({ connectionString: url, application_name: applicationName });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
