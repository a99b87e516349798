import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { FieldProblem, JobValidationError } from '../errors/job-request.errors';
import { findUnstorableJson } from '../job/json-safety';
import { flattenValidationErrors } from './envelope/envelope-problems';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Every problem of a job's payload, under `field`: storable as jsonb (findUnstorableJson), and valid against the
 * handler's payload class when it has one (class-validator, unknown fields refused). The submission's check, and
 * `runJob`'s, so a payload a test runs is one a submission would take.
 */
export function payloadProblems(payload: unknown, payloadClass: (new () => object) | null, field = 'payload'): FieldProblem[] {
  const unstorable = findUnstorableJson(payload, field);
  if (unstorable) return [{ field: unstorable.field, problems: [unstorable.problem] }];
  return payloadClass ? classProblems(payloadClass, payload, field) : [];
}

/** The error a submission with these problems is refused with (a 400 over HTTP). */
export function invalidSubmission(problems: FieldProblem[]): JobValidationError {
  return new JobValidationError(`Invalid job submission: ${problems.map((p) => p.field).join(', ')}`, problems);
}

function classProblems(cls: new () => object, payload: unknown, field: string): FieldProblem[] {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return [{ field, problems: ['must be a JSON object'] }];
  }
  const dangerous = findKey(payload, FORBIDDEN_KEYS, field);
  if (dangerous) return [{ field: dangerous, problems: ['is not allowed'] }];
  const instance = plainToInstance(cls, payload) as object;
  return flattenValidationErrors(validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }), `${field}.`);
}

function findKey(value: unknown, keys: Set<string>, path: string): string | null {
  if (value === null || typeof value !== 'object') return null;
  for (const k of Object.keys(value)) {
    if (keys.has(k)) return `${path}.${k}`;
    const inner = findKey((value as Record<string, unknown>)[k], keys, `${path}.${k}`);
    if (inner) return inner;
  }
  return null;
}
