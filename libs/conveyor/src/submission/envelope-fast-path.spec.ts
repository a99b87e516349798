import fc from 'fast-check';
import { validateSync } from 'class-validator';
import { isPlainlyValidEnvelope } from './envelope-fast-path';
import { SubmitJobEnvelope } from './envelope/submit-job-envelope';

/** Values near and across every bound the DTO checks, plus odd types. */
const anyValue = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    '',
    ' ',
    'x'.repeat(200),
    'x'.repeat(201),
    'x'.repeat(255),
    'x'.repeat(256),
    '\uFE0F',
    'é',
    'a b',
    'q:1.-_',
  ),
  fc.string({ maxLength: 260 }),
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.integer({ min: -2_000_000, max: 2_000_000 }),
  fc.constantFrom(0, 1, 1000, 1001, -1, 1_000_000, 1_000_001, 366 * 86_400_000, 366 * 86_400_000 + 1, 1.5, NaN, Infinity),
  fc.boolean(),
  fc.object({ maxDepth: 1 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

const envelope = fc.record(
  {
    type: anyValue,
    payload: anyValue,
    queue: anyValue,
    priority: anyValue,
    runAt: fc.constantFrom(undefined, '2030-01-01T00:00:00Z'),
    delayMs: anyValue,
    maxAttempts: anyValue,
    idempotencyKey: anyValue,
    uniqueKey: anyValue,
  },
  { requiredKeys: [] },
);

describe('isPlainlyValidEnvelope', () => {
  it('says valid only where SubmitJobEnvelope finds no problem', () => {
    fc.assert(
      fc.property(envelope, (raw) => {
        if (!isPlainlyValidEnvelope(raw)) return;
        const dto = Object.assign(new SubmitJobEnvelope(), raw);
        expect(validateSync(dto)).toEqual([]);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes the ordinary submission', () => {
    expect(isPlainlyValidEnvelope({ type: 'SEND_EMAIL', payload: { to: 'a@b.c' } })).toBe(true);
    expect(
      isPlainlyValidEnvelope({ type: 'SEND_EMAIL', payload: {}, queue: 'emails', priority: 5, maxAttempts: 3, idempotencyKey: 'k-1' }),
    ).toBe(true);
  });
});
