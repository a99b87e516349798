import { Client } from 'pg';

/** A job's end as the database has it. */
export interface JobEnd {
  id: string;
  status: string;
  attempts: number;
  locked_by: string | null;
  errors: { kind: string; worker?: string }[];
}

/** The jobs of `ids` as they stand now, in id order. */
export async function jobEnds(db: Client, ids: string[]): Promise<JobEnd[]> {
  const { rows } = await db.query<JobEnd>(
    `SELECT id, status, attempts, locked_by, errors FROM conveyor_jobs WHERE id = ANY($1::uuid[]) ORDER BY id`,
    [ids],
  );
  return rows;
}
