import { ConveyorClient } from '@conveyor/client';

/** `node wait-for-jobs.js <baseUrl> <jobId>...`: waits for each job to finish, prints them as one JSON line. */
async function main(): Promise<void> {
  const [baseUrl, ...ids] = process.argv.slice(2);
  const conveyor = new ConveyorClient({ baseUrl });
  const jobs = await Promise.all(ids.map((id) => conveyor.waitFor(id, { timeoutMs: 30_000, intervalMs: 100 })));
  console.log(JSON.stringify(jobs.map(({ id, status, result }) => ({ id, status, result }))));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
