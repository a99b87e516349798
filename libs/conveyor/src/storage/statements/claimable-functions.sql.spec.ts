import { createHash } from 'node:crypto';
import { claimableFunctionsDdl } from './claimable-functions.sql';

describe('claimableFunctionsDdl', () => {
  // Migration 0002 runs this text; an applied migration must never change, whatever happens to the claim since.
  it('is the DDL migration 0002 was applied with, byte for byte', () => {
    const ddl = claimableFunctionsDdl('"S"', '"S".conveyor_jobs', '"S".conveyor_queues');
    expect(createHash('sha256').update(ddl).digest('hex')).toBe('ee536379004b12ac413155e5b7449c43f2f80a2cb85e4b853107274f68a160ec');
  });
});
