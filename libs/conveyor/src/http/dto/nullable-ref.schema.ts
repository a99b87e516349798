import { getSchemaPath } from '@nestjs/swagger';

/** Matches null only: OpenAPI 3.0 has no null type, and `nullable` adds null to the `type` beside it. */
const NULL_ONLY = { type: 'string', nullable: true, enum: [null] };

/**
 * The OpenAPI schema of a named schema (a DTO class or an enum's name) or null. What `@ApiProperty({ type,
 * nullable: true })` writes, `nullable` beside an `allOf` of the reference, admits no null: in OpenAPI 3.0
 * `nullable` only widens a `type` in the same schema object, and the referenced schema still requires its own, so
 * a client checking answers refuses every job that has reported no progress. `anyOf` with a null-only branch says
 * what the answers hold. `@ApiProperty` drops its own `type` when given `anyOf`.
 */
export function nullableRef(model: string | (new (...args: never[]) => unknown)) {
  return { anyOf: [{ $ref: getSchemaPath(model) }, NULL_ONLY] };
}
