/**
 * The OpenAPI schema of a value that may be any JSON: a payload, a handler's result. Left to itself,
 * @nestjs/swagger documents an `unknown` property as `type: object`, and a client that checks answers against the
 * document refuses a job whose payload is a string or whose result is a number or an array. `anyOf` (given to
 * `@ApiProperty`, which then drops its own `type`) lists every JSON kind; OpenAPI 3.0 has no null type, so a field
 * that may be null marks one branch `nullable`.
 */
export function anyJsonSchema(options: { nullable?: boolean } = {}) {
  return {
    anyOf: [
      { type: 'object', additionalProperties: true, ...(options.nullable ? { nullable: true } : {}) },
      { type: 'array', items: {} },
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
    ],
  };
}
