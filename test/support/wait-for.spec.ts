import { waitFor } from './wait-for';
import { WaitForTimeoutError } from './wait-for-timeout.error';

describe('waitFor', () => {
  it('returns the first truthy value the probe produces', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it('treats a throwing probe as "not yet" and reports its last error when time runs out', async () => {
    const failure = new Error('connection refused');
    const error = await waitFor(
      () => {
        throw failure;
      },
      { timeoutMs: 50, intervalMs: 5, message: 'the server to answer' },
    ).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WaitForTimeoutError);
    expect((error as Error).message).toBe('Timed out after 50 ms waiting for the server to answer');
    expect((error as Error).cause).toBe(failure);
  });

  it('does not let a probe that never settles hold up the deadline', async () => {
    const startedAt = Date.now();
    await expect(waitFor(() => new Promise<never>(() => undefined), { timeoutMs: 50 })).rejects.toBeInstanceOf(WaitForTimeoutError);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});
