import { validateSync, ValidationError } from 'class-validator';
import { FieldProblem } from '../../errors/job-request.errors';
import { findUnstorableJson } from '../../job/json-safety';
import { SubmitJobEnvelope } from './submit-job-envelope';

const ENVELOPE_STRINGS = ['type', 'queue', 'runAt', 'idempotencyKey', 'uniqueKey'] as const;

/**
 * Every problem of a submission's envelope by its own rules (SubmitJobEnvelope, and storable text), with `path`
 * before each field name. A handler's type and queue are held to these rules too: every job of the type carries them.
 */
export function envelopeProblems(envelope: SubmitJobEnvelope, path = ''): FieldProblem[] {
  return [...flattenValidationErrors(validateSync(envelope), path), ...unstorableStrings(envelope, path)];
}

/** Envelope strings go to PostgreSQL too, so they must be storable text: no NUL, no lone surrogate. */
function unstorableStrings(envelope: SubmitJobEnvelope, path: string): FieldProblem[] {
  return ENVELOPE_STRINGS.flatMap((k) => {
    const bad = typeof envelope[k] === 'string' ? findUnstorableJson(envelope[k], `${path}${k}`) : null;
    return bad ? [{ field: bad.field, problems: [bad.problem] }] : [];
  });
}

/** Turns class-validator's tree into `field: problems`, with dotted paths. */
export function flattenValidationErrors(errors: ValidationError[], prefix: string): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const e of errors) {
    const field = `${prefix}${e.property}`;
    if (e.constraints) out.push({ field, problems: Object.values(e.constraints) });
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, `${field}.`));
  }
  return out;
}
