import { JobValidationError } from '../errors/job-request.errors';
import { readJobProgress } from './job-progress.reader';

/** The fields a refused report names. */
function refused(input: unknown): string[] {
  try {
    readJobProgress(input);
  } catch (err) {
    if (err instanceof JobValidationError) return (err.details ?? []).map((d) => d.field);
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('readJobProgress', () => {
  it('takes a percentage, data or both', () => {
    expect(readJobProgress(40)).toEqual({ percent: 40, data: null });
    expect(readJobProgress({ data: { step: 'upload' } })).toEqual({ percent: null, data: { step: 'upload' } });
    expect(readJobProgress({ percent: 100, data: { at: new Date(0), skipped: undefined } })).toMatchObject({ percent: 100 });
  });

  it('names the field of a bad report', () => {
    expect(refused(101)).toEqual(['percent']);
    expect(refused({})).toEqual(['percent']);
    expect(refused({ data: [1] })).toEqual(['data']);
    expect(refused({ data: { blob: 'x'.repeat(2000) } })).toEqual(['data']);
  });

  it('refuses data jsonb cannot hold, where it is', () => {
    expect(refused({ data: { a: 'nul \u0000' } })).toEqual(['data.a']);
    expect(refused({ data: { 'a\u0000': 1 } })).toEqual(['data.a\\u0000']);
    expect(refused({ percent: 5, data: { list: ['\ud800'] } })).toEqual(['data.list[0]']);
  });
});
