import { withClient } from './with-client';

/** SQLSTATE of a statement the role may not run (CHECKPOINT needs superuser or, from PostgreSQL 15, pg_checkpoint). */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Runs a CHECKPOINT before a case writes the jobs it measures, so that every variant's measured phase starts at
 * the same point of PostgreSQL's checkpoint cycle.
 *
 * The cases write a lot of WAL (a backlog case ~0.5 GB), and with the default `max_wal_size` (1 GB) the server
 * starts a checkpoint every ~540 MB of it: in a full run, every one to three minutes, at a moment set by whatever
 * ran before. A checkpoint that started just before or during a measured drain makes each page's first change
 * after it log a full page image, which costs a wide-rowed table more than a narrow one. Which variant met one
 * was chance: a likely part of why the backlog ratios ranged 0.68x-1.15x between full runs (with a checkpoint
 * first, 3 repetitions of each variant all came out at 0.81x or above). Checkpointing first puts the
 * next one ~540 MB of WAL away, far beyond any measured phase, and leaves the pages the phase touches logged
 * already by the writes that made them.
 *
 * Does nothing where the role may not checkpoint (a `DATABASE_URL` of a non-superuser): the cases then run as before.
 */
export async function checkpointBeforeMeasuring(url: string): Promise<void> {
  try {
    await withClient(url, (c) => c.query('CHECKPOINT'));
  } catch (err) {
    if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw err;
  }
}
