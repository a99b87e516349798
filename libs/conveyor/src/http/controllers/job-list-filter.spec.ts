import { JobValidationError } from '../../errors/job-request.errors';
import { DEFAULT_PAGE, toJobListFilter } from './job-list-filter';

describe('toJobListFilter', () => {
  it('turns times into dates, re-serialises the payload filter and defaults the page size', () => {
    const filter = toJobListFilter({
      payload: ' { "a" : { "b": 1 } } ',
      createdFrom: '2026-01-01T00:00:00Z',
      createdTo: '2026-01-02T00:00:00+01:00',
    });
    expect(filter).toMatchObject({
      payload: '{"a":{"b":1}}',
      createdFrom: new Date('2026-01-01T00:00:00Z'),
      createdTo: new Date('2026-01-01T23:00:00Z'),
      limit: DEFAULT_PAGE,
    });
  });

  it('keeps what is not given undefined', () => {
    expect(toJobListFilter({ limit: 5 })).toMatchObject({ payload: undefined, createdFrom: undefined, createdTo: undefined, limit: 5 });
  });

  it('refuses a range that ends before it starts, naming createdTo', () => {
    const call = () => toJobListFilter({ createdFrom: '2026-01-02T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' });
    expect(call).toThrow(JobValidationError);
    try {
      call();
    } catch (err) {
      expect((err as JobValidationError).details!.map((d) => d.field)).toEqual(['createdTo']);
    }
  });

  it('accepts a range of one instant', () => {
    expect(() => toJobListFilter({ createdFrom: '2026-01-01T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' })).not.toThrow();
  });
});
