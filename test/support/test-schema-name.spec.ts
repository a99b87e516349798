import { testSchemaName } from './test-schema-name';

describe('testSchemaName', () => {
  it('lower-cases the label and turns runs of other characters into one underscore', () => {
    expect(testSchemaName('Claim: Skip-Locked / 2 workers')).toMatch(/^t_claim_skip_locked_2_workers_[0-9a-f]{8}$/);
  });

  it('stays within 63 characters and never ends its label part with an underscore', () => {
    for (const label of ['a'.repeat(100), `${'a'.repeat(51)}-b`, '']) {
      const name = testSchemaName(label);
      expect(name.length).toBeLessThanOrEqual(63);
      expect(name).toMatch(/^t(_[a-z0-9]+)*_[0-9a-f]{8}$/);
    }
  });

  it('differs between calls with the same label', () => {
    expect(testSchemaName('same')).not.toBe(testSchemaName('same'));
  });
});
