import { ArgumentsHost, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ConveyorExceptionFilter, RETRY_AFTER_SECONDS } from './conveyor-exception.filter';

/** The filter over an HTTP adapter that records what it was told to answer. */
function filterAnswering() {
  const answer: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const adapter = {
    isHeadersSent: () => false,
    setHeader: (_res: unknown, name: string, value: string) => (answer.headers[name] = value),
    reply: (_res: unknown, body: unknown, status: number) => Object.assign(answer, { body, status }),
  };
  const filter = new ConveyorExceptionFilter({ httpAdapter: adapter } as unknown as HttpAdapterHost);
  const host = { switchToHttp: () => ({ getResponse: () => ({}) }) } as unknown as ArgumentsHost;
  return { answer, raise: (err: unknown) => filter.catch(err, host) };
}

/** An error as pg raises it for a SQLSTATE. */
function databaseError(code: string): Error {
  return Object.assign(new Error(`error ${code}`), { code });
}

describe('ConveyorExceptionFilter', () => {
  afterEach(() => jest.restoreAllMocks());

  it('answers a deadlock the engine did not settle (40P01) with a 503 and Retry-After, and warns the operator', () => {
    const { answer, raise } = filterAnswering();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    raise(databaseError('40P01'));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('error 40P01'));
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toBe(String(RETRY_AFTER_SECONDS));
    expect(answer.body).toMatchObject({ statusCode: 503, message: expect.stringContaining('deadlock') });
  });

  it('answers a serialization failure (40001, a race lost under REPEATABLE READ or SERIALIZABLE) with a 503 and Retry-After', () => {
    const { answer, raise } = filterAnswering();
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    raise(databaseError('40001'));
    expect(answer.status).toBe(503);
    expect(answer.headers['Retry-After']).toBe(String(RETRY_AFTER_SECONDS));
    expect(answer.body).toMatchObject({ statusCode: 503, message: expect.stringContaining('concurrent change') });
  });

  it('answers any other database error with a 500 and no Retry-After', () => {
    const { answer, raise } = filterAnswering();
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    raise(databaseError('23502'));
    expect(answer.status).toBe(500);
    expect(answer.headers['Retry-After']).toBeUndefined();
  });
});
