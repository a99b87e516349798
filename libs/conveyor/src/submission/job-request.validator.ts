import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { MESSAGES } from '../errors/conveyor.messages';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { FieldProblem } from '../errors/job-request.errors';
import { HandlerRegistry } from '../handlers/handler-registry.service';
import { NewJobRow } from '../storage/statements/new-job-row';
import { canonicalJson } from './canonical-json';
import { isPlainlyValidEnvelope } from './envelope-fast-path';
import { newJobId } from '../job/job-id';
import { SubmitJobEnvelope } from './envelope/submit-job-envelope';
import { envelopeProblems } from './envelope/envelope-problems';
import { invalidSubmission, payloadProblems } from './payload-problems';
import { isRunAtText, RUN_AT_PROBLEM } from './run-at-text';

const ENVELOPE_KEYS = ['type', 'payload', 'queue', 'priority', 'runAt', 'delayMs', 'maxAttempts', 'idempotencyKey', 'uniqueKey'];
const ENVELOPE_KEY_SET = new Set(ENVELOPE_KEYS);

/**
 * The single check of a submission, for REST and in-code callers alike: the envelope (class-validator on
 * SubmitJobEnvelope), the type (a registered handler or a declared external type), the payload (storable as
 * jsonb, and valid against the handler's payload class). Every problem names its field.
 */
@Injectable()
export class JobRequestValidator {
  constructor(
    private readonly registry: HandlerRegistry,
    @Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions,
  ) {}

  /** Validates one submission; `path` prefixes field names (e.g. `jobs[2].`). Throws JobValidationError. */
  toRow(input: unknown, path = ''): NewJobRow {
    const problems = this.check(input, path);
    if (problems.length > 0) throw invalidSubmission(problems);
    const req = input as SubmitJobEnvelope;
    const handler = this.registry.get(req.type);
    const queue = req.queue ?? handler?.queue ?? 'default';
    const priority = req.priority ?? 0;
    const maxAttempts = req.maxAttempts ?? handler?.maxAttempts ?? this.options.defaultMaxAttempts;
    const key = req.idempotencyKey ?? null;
    return {
      id: newJobId(),
      queue,
      type: req.type,
      payload: req.payload,
      // Made when first needed (payloadJson); present from the start, so every row has one shape.
      payload_json: undefined,
      priority,
      run_at: req.runAt ? new Date(req.runAt).toISOString() : null,
      delay_ms: req.delayMs ?? null,
      max_attempts: maxAttempts,
      idempotency_key: key,
      idempotency_hash: key ? requestHash(req) : null,
      unique_key: req.uniqueKey ?? null,
    };
  }

  /** Every problem of one submission, or none. */
  check(input: unknown, path = ''): FieldProblem[] {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return [{ field: path.replace(/\.$/, '') || 'body', problems: ['must be a JSON object'] }];
    }
    const raw = input as Record<string, unknown>;
    // The common submission skips the DTO copy and class-validator (see isPlainlyValidEnvelope). Only a plain
    // object qualifies, so every field read below is an own field, as the DTO copy would have seen it.
    if (isPlainRecord(raw) && hasOnlyEnvelopeKeys(raw) && isPlainlyValidEnvelope(raw) && this.isKnownType(raw.type as string)) {
      return this.checkPayloadOf(raw.type as string, raw.payload, path);
    }
    const problems: FieldProblem[] = [];
    const unknown = Object.keys(raw).filter((k) => !ENVELOPE_KEY_SET.has(k));
    for (const k of unknown) problems.push({ field: `${path}${k}`, problems: ['is not a known field'] });

    // Copy only known own fields: never hand attacker-chosen keys to class-transformer.
    const dto = new SubmitJobEnvelope();
    for (const k of ENVELOPE_KEYS)
      if (Object.prototype.hasOwnProperty.call(raw, k)) (dto as unknown as Record<string, unknown>)[k] = raw[k];
    if (!isPlainlyValidEnvelope(dto as unknown as Record<string, unknown>)) problems.push(...envelopeProblems(dto, path));
    // IsISO8601 also passes week dates, ordinal dates and basic format (2030-W05-3, 2030-010, 20300101T00Z),
    // which Date either cannot read (an Invalid Date, then a 500) or misreads (2030-010 as 1 October).
    if (typeof dto.runAt === 'string' && !problems.some((p) => p.field === `${path}runAt`) && !isRunAtText(dto.runAt)) {
      problems.push({ field: `${path}runAt`, problems: [RUN_AT_PROBLEM] });
    }
    if (dto.runAt !== undefined && dto.delayMs !== undefined) {
      problems.push({ field: `${path}delayMs`, problems: ['give either runAt or delayMs, not both'] });
    }
    if (typeof dto.type === 'string' && dto.type.length > 0 && !this.isKnownType(dto.type)) {
      problems.push({ field: `${path}type`, problems: [MESSAGES.unknownType(dto.type)] });
    }
    if (problems.length > 0) return problems;
    return this.checkPayloadOf(dto.type, dto.payload, path);
  }

  /** Problems of the payload of a job whose envelope is valid: storable as jsonb, and valid for its handler. */
  private checkPayloadOf(type: string, payload: unknown, path: string): FieldProblem[] {
    return payloadProblems(payload, this.registry.get(type)?.payloadClass ?? null, `${path}payload`);
  }

  isKnownType(type: string): boolean {
    return this.registry.has(type) || this.options.externalTypes.includes(type);
  }

  /** Every type a submission may name: those with an in-process handler and the external ones. */
  knownTypes(): string[] {
    return [...this.registry.types(), ...this.options.externalTypes];
  }
}

/** An object literal or JSON.parse result: no class, no inherited fields. */
function isPlainRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function hasOnlyEnvelopeKeys(raw: Record<string, unknown>): boolean {
  for (const k in raw) if (!ENVELOPE_KEY_SET.has(k)) return false;
  return true;
}

/** Fingerprint of everything that defines a submission, so a repeat with another body is a 409. */
export function requestHash(req: SubmitJobEnvelope): string {
  // canonicalJson drops undefined fields: an absent field and one set to undefined fingerprint alike.
  const { type, payload, queue, priority, runAt, delayMs, maxAttempts, uniqueKey } = req;
  return createHash('sha256')
    .update(canonicalJson({ type, payload, queue, priority, runAt, delayMs, maxAttempts, uniqueKey }))
    .digest('hex');
}
