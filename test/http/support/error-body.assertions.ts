import { STATUS_CODES } from 'node:http';
import type { Response } from 'supertest';

/**
 * Asserts the API's error shape `{ statusCode, error, message, details?, jobStatus? }` with the given status, and
 * that `details` names every field in `fields` (each with at least one problem). Returns the named fields.
 */
export function expectErrorBody(res: Response, status: number, fields: string[] = []): string[] {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.body as { statusCode: unknown; error: unknown; message: unknown; details?: unknown };
  const keys = [
    'error',
    'message',
    'statusCode',
    ...(body.details === undefined ? [] : ['details']),
    ...((body as { jobStatus?: unknown }).jobStatus === undefined ? [] : ['jobStatus']),
  ];
  expect(Object.keys(body).sort()).toEqual(keys.sort());
  expect(body.statusCode).toBe(status);
  expect(body.error).toBe(STATUS_CODES[status]);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  if (body.details === undefined) {
    expect(fields).toEqual([]);
    return [];
  }
  const details = body.details as Array<{ field: unknown; problems: unknown }>;
  expect(Array.isArray(details)).toBe(true);
  for (const d of details) {
    expect(typeof d.field).toBe('string');
    expect(Array.isArray(d.problems)).toBe(true);
    expect((d.problems as unknown[]).length).toBeGreaterThan(0);
    for (const p of d.problems as unknown[]) expect(typeof p).toBe('string');
  }
  const named = details.map((d) => d.field as string);
  expect(named).toEqual(expect.arrayContaining(fields));
  return named;
}
