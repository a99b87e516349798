import { SqlParams } from './sql-params';
import { SqlTables, Statement } from './statement';

/** The one leadership this schema has: the maintenance leader's. */
const MAINTENANCE = 'maintenance';

/** A term of leadership held by one instance; maintenance writes carry it so that only the current term's land. */
export interface LeaderTerm {
  holder: string;
  term: number;
}

/**
 * Takes the leadership when it is free or has expired (a new term), or renews the caller's own current term
 * (`term`: the one it holds, 0 for none), for `leaseMs` by the database's clock. Returns the term held, or no row
 * while another instance's unexpired term stands.
 */
export function leadershipClaim(t: SqlTables, holder: string, term: number, leaseMs: number): Statement {
  const p = new SqlParams();
  return { text: leadershipClaimSql(t, p, holder, term, leaseMs), values: p.values };
}

/**
 * leadershipClaim's statement, its values added to `p`, for a statement that does more in the same round trip
 * (maintenance-round.sql.ts). While it returns a row, its conflict arm holds the leadership row locked until the
 * statement's transaction ends: no other instance takes a term meanwhile.
 */
export function leadershipClaimSql(t: SqlTables, p: SqlParams, holder: string, term: number, leaseMs: number): string {
  const h = p.add(holder);
  const held = p.add(term);
  const lease = p.add(leaseMs);
  return `
INSERT INTO ${t.leadership} AS l (name, holder, term, expires_at)
VALUES ('${MAINTENANCE}', ${h}, 1, now() + ${lease} * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE SET
  term = CASE WHEN l.holder = ${h} AND l.term = ${held} AND l.expires_at > now() THEN l.term ELSE l.term + 1 END,
  holder = ${h},
  expires_at = EXCLUDED.expires_at
WHERE (l.holder = ${h} AND l.term = ${held}) OR l.expires_at <= now()
RETURNING term::float8 AS term`;
}

/** Ends the caller's term now, so another instance takes over at its next try rather than when the lease runs out. */
export function leadershipResign(t: SqlTables, lease: LeaderTerm): Statement {
  return {
    text: `UPDATE ${t.leadership} SET expires_at = now() WHERE name = '${MAINTENANCE}' AND holder = $1 AND term = $2 AND expires_at > now()`,
    values: [lease.holder, lease.term],
  };
}

/**
 * An SQL condition that holds while `lease` is the current, unexpired term; `$holder` and `$term` are the
 * placeholders its statement binds to the lease's holder and term. Checked in the same statement as the write it
 * guards, so a leader whose term ended (it was cut off, frozen, or slow) writes nothing.
 */
export function leaderFence(t: SqlTables, holderParam: string, termParam: string): string {
  return `EXISTS (SELECT 1 FROM ${t.leadership}
  WHERE name = '${MAINTENANCE}' AND holder = ${holderParam} AND term = ${termParam} AND expires_at > now())`;
}
