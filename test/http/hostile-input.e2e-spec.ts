import { IsInt, IsOptional, IsString, Length } from 'class-validator';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import request from 'supertest';
import { Job, JobHandler, JobHandlerHost } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

/*
 * Property-based tests of the REST API against hostile input: whatever arrives, the answer is never a 5xx.
 * It is either a 4xx in the standard error shape naming the problem, or a stored job whose payload reads
 * back exactly as sent.
 *
 * Bodies are built as JSON *text* from a small tree (not with JSON.stringify of an object), so that keys
 * like `__proto__`, duplicate keys and number spellings JavaScript objects cannot hold (`1e999`, `-0`)
 * reach the server as an attacker would send them. What the server should have understood is what
 * JSON.parse makes of that same text.
 *
 * "Reads back exactly" compares JSON with sorted keys: jsonb stores object keys in its own order (and keeps
 * the last of duplicate keys, as JSON.parse does), so key order is the one thing that may differ.
 */

const FREE = 'HOSTILE_FREE';
const TYPED = 'HOSTILE_TYPED';
const BODY_LIMIT = 256 * 1024;
const MAX_BATCH = 25;
const RUNS = 150;
const RUNS_PER_FIELD = 80;

class TypedPayload {
  @IsString()
  @Length(1, 100)
  to: string;

  @IsOptional()
  @IsInt()
  n?: number;
}

@JobHandler(TYPED, { payload: TypedPayload })
class TypedHandler extends JobHandlerHost<TypedPayload> {
  handle(_job: Job<TypedPayload>): null {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// JSON text trees

type JsonNode =
  | { t: 'value'; v: string | number | boolean | null }
  | { t: 'raw'; text: string }
  | { t: 'array'; items: JsonNode[] }
  | { t: 'object'; entries: Array<[string, JsonNode]> };

function toText(node: JsonNode): string {
  switch (node.t) {
    case 'value':
      return JSON.stringify(node.v);
    case 'raw':
      return node.text;
    case 'array':
      return `[${node.items.map(toText).join(',')}]`;
    case 'object':
      return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`).join(',')}}`;
  }
}

const value = (v: string | number | boolean | null): JsonNode => ({ t: 'value', v });
const object = (entries: Array<[string, JsonNode]>): JsonNode => ({ t: 'object', entries });

const SPECIAL_STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  'a\uDC00\uD800b',
  '\uD83D\uDE00',
  '\u2028\u2029',
  '\uFEFF',
  '\\',
  '"',
  '%',
  '_',
  '$1',
  "'; DROP TABLE conveyor_jobs; --",
  "' OR '1'='1",
  '"; DELETE FROM conveyor_jobs WHERE ""="',
  '\\x00',
  '\\u0000',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'NaN',
  'Infinity',
  '2020-W01',
  '{{7*7}}',
  '<script>alert(1)</script>',
];

const NUMBER_SPELLINGS = [
  '1e999',
  '-1e999',
  '-0',
  '1.0',
  '0.1e-400',
  '123456789012345678901234567890',
  '1E2',
  '5e-324',
  '1.7976931348623157e308',
];

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.constantFrom(...SPECIAL_STRINGS), weight: 4 },
  {
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...SPECIAL_STRINGS), fc.string({ unit: 'binary', maxLength: 5 })), { maxLength: 5 })
      .map((p) => p.join('')),
    weight: 3,
  },
  {
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'é', '😀', '\u0000', '\uD800'), fc.integer({ min: 1_000, max: 60_000 }))
      .map(([c, n]) => c.repeat(n)),
    weight: 1,
  },
);

const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype'), weight: 3 },
  { arbitrary: hostileString.filter((s) => s.length < 100), weight: 5 },
);

const leaf: fc.Arbitrary<JsonNode> = fc.oneof(
  hostileString.map(value),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(value),
  fc.integer().map(value),
  fc.boolean().map(value),
  fc.constant(value(null)),
  fc.constantFrom(...NUMBER_SPELLINGS).map((text): JsonNode => ({ t: 'raw', text })),
);

const { node: jsonNode } = fc.letrec<{ node: JsonNode; array: JsonNode; object: JsonNode }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 4 }).map((items): JsonNode => ({ t: 'array', items })),
  object: fc.array(fc.tuple(hostileKey, tie('node')), { maxLength: 4 }).map(object),
}));

/** `depth` levels of arrays and objects around a leaf: around MAX_JSON_DEPTH and far past it. */
const deepNode: fc.Arbitrary<JsonNode> = fc
  .tuple(fc.integer({ min: 1, max: 250 }), fc.constantFrom('array', 'object', 'mixed'), leaf)
  .map(([depth, shape, inner]) => {
    let n = inner;
    for (let i = 0; i < depth; i++) {
      const asArray = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
      n = asArray ? { t: 'array', items: [n] } : object([['k', n]]);
    }
    return n;
  });

/** Payloads: anything, pollution attempts (top-level and nested), deep nesting. */
const payloadNode: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: jsonNode, weight: 4 },
  { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v): JsonNode => ({ t: 'raw', text: JSON.stringify(v) })), weight: 2 },
  {
    arbitrary: fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), jsonNode, fc.boolean()).map(([k, inner, nested]) =>
      nested
        ? object([
            ['data', object([[k, object([['polluted', value(true)]])]])],
            ['x', inner],
          ])
        : object([[k, object([['polluted', inner]])]]),
    ),
    weight: 2,
  },
  { arbitrary: deepNode, weight: 1 },
);

/** Right or wrong values for each envelope field. */
const ENVELOPE_FIELDS: Record<string, fc.Arbitrary<JsonNode>> = {
  type: fc.oneof(
    { arbitrary: fc.constantFrom(FREE, TYPED).map(value), weight: 6 },
    { arbitrary: fc.oneof(hostileString.map(value), jsonNode), weight: 1 },
  ),
  payload: payloadNode,
  queue: fc.oneof(fc.constantFrom('default', 'q.1', 'a:b-c_d').map(value), hostileString.map(value), jsonNode),
  priority: fc.oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }).map(value),
    fc.double().map((d) => value(Number.isFinite(d) ? d : 1.5)),
    jsonNode,
  ),
  runAt: fc.oneof(
    fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => value(d.toISOString())),
    // Spellings ISO 8601 allows but that are easy to mishandle.
    fc
      .constantFrom(
        '2020-W01',
        '2020-W01-1',
        '2020-123',
        '20200101T000000Z',
        '2020-01-01T10.5',
        '2020-01-01T10Z',
        '2020',
        '2020-01',
        '0000-01-01',
        '9999-12-31T23:59:59Z',
        '2020-01-01T10:00:00.123456789Z',
        '2020-02-30',
        '2020-01-01T10:00:00+25:00',
      )
      .map(value),
    hostileString.map(value),
    jsonNode,
  ),
  delayMs: fc.oneof(
    fc.integer({ min: 0, max: 366 * 86_400_000 }).map(value),
    fc.double().map((d) => value(Number.isFinite(d) ? d : -1)),
    jsonNode,
  ),
  maxAttempts: fc.oneof(fc.integer({ min: -5, max: 1_005 }).map(value), jsonNode),
  idempotencyKey: fc.oneof(fc.uuid().map(value), hostileString.map(value), jsonNode),
};

/** A submission: `type` and `payload` usually, other fields sometimes, stray and polluting keys now and then. */
const envelope: fc.Arbitrary<JsonNode> = fc
  .tuple(
    fc.record(
      Object.fromEntries(
        Object.entries(ENVELOPE_FIELDS).map(([k, arb]) => [
          k,
          fc.option(arb, { nil: undefined, freq: k === 'type' || k === 'payload' ? 8 : 2 }),
        ]),
      ),
    ),
    fc.option(fc.array(fc.tuple(hostileKey, jsonNode), { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 }),
  )
  .chain(([fields, extra]) => {
    const entries: Array<[string, JsonNode]> = [...Object.entries(fields).filter(([, v]) => v !== undefined), ...(extra ?? [])] as Array<
      [string, JsonNode]
    >;
    return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }).map(object);
  });

/** A submission that would be accepted, as field entries. */
const validFields: fc.Arbitrary<Array<[string, JsonNode]>> = fc
  .tuple(
    fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v): Array<[string, JsonNode]> => [
        ['type', value(FREE)],
        ['payload', { t: 'raw', text: JSON.stringify(v) }],
      ]),
      fc.tuple(fc.string({ minLength: 1, maxLength: 100 }), fc.option(fc.integer())).map(([to, n]): Array<[string, JsonNode]> => [
        ['type', value(TYPED)],
        ['payload', object([['to', value(to)], ...(n === null ? [] : [['n', value(n)] as [string, JsonNode]])])],
      ]),
    ),
    fc.record(
      {
        queue: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,40}$/).map(value),
        priority: fc.integer({ min: -1_000_000, max: 1_000_000 }).map(value),
        when: fc.oneof(
          fc
            .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
            .map((d): [string, JsonNode] => ['runAt', value(d.toISOString())]),
          fc.integer({ min: 0, max: 366 * 86_400_000 }).map((ms): [string, JsonNode] => ['delayMs', value(ms)]),
        ),
        maxAttempts: fc.integer({ min: 1, max: 1000 }).map(value),
        idempotencyKey: fc.uuid().map(value),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([core, optional]) => [
    ...core,
    ...Object.entries(optional).map(([k, v]): [string, JsonNode] => (k === 'when' ? (v as [string, JsonNode]) : [k, v as JsonNode])),
  ]);

/** An acceptable submission with `field` set to a wrong, hostile or missing value (or a right one). */
const oneFieldWrong = (field: string): fc.Arbitrary<JsonNode> =>
  fc
    .tuple(
      validFields,
      fc.oneof(
        { arbitrary: ENVELOPE_FIELDS[field], weight: 3 },
        { arbitrary: hostileString.map(value), weight: 3 },
        { arbitrary: jsonNode, weight: 1 },
        { arbitrary: fc.constant(undefined), weight: 1 },
      ),
    )
    .map(([fields, wrong]) =>
      object([...fields.filter(([k]) => k !== field), ...(wrong === undefined ? [] : [[field, wrong] as [string, JsonNode]])]),
    );

/** A whole request body that may not be an object at all. */
const anyBody: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: envelope, weight: 6 },
  { arbitrary: jsonNode, weight: 2 },
  { arbitrary: fc.jsonValue().map((v): JsonNode => ({ t: 'raw', text: JSON.stringify(v) })), weight: 2 },
);

// ---------------------------------------------------------------------------------------------------------
// What every answer must look like

/** JSON with keys sorted, so stored and sent payloads compare despite jsonb's key order. */
function sortedJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

function describeAnswer(res: request.Response): string {
  return `${res.status} ${res.text.slice(0, 500)}`;
}

/** A 4xx in the standard shape; a 400 also names the fields at fault. */
/** Sends a Buffer body byte for byte (superagent would turn it into the JSON of a Buffer object). */
const asIs = (body: unknown) => body as string;

function expectStandardError(res: request.Response): void {
  if (res.status < 400 || res.status >= 500) throw new Error(`expected a 4xx, got ${describeAnswer(res)}`);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ statusCode: res.status, error: STATUS_CODES[res.status], message: expect.any(String) });
  expect(res.body.message.length).toBeGreaterThan(0);
  if (res.status === 400) {
    expect(Array.isArray(res.body.details) && res.body.details.length > 0).toBe(true);
    for (const d of res.body.details) {
      expect(typeof d.field).toBe('string');
      expect(d.problems.length).toBeGreaterThan(0);
    }
  }
}

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

function expectNoPollution(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe('REST API under hostile input', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('http_hostile');
    t = await createTestApp({
      schema: schema.schema,
      providers: [TypedHandler],
      engine: { runWorkers: false, externalTypes: [FREE], maxBatchSize: MAX_BATCH },
      bodyLimitBytes: BODY_LIMIT,
    });
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  const post = (path: string, text: string) => request(t.app.getHttpServer()).post(path).set('Content-Type', 'application/json').send(text);

  /** The job reads back with exactly the payload the text carried. */
  async function expectStored(id: string, sentPayload: unknown): Promise<void> {
    const res = await request(t.app.getHttpServer()).get(`/jobs/${id}`);
    expect(res.status).toBe(200);
    expect(sortedJson(JSON.parse(res.text).payload)).toBe(sortedJson(sentPayload));
  }

  it('POST /jobs: never a 5xx; a 4xx naming the problem, or a job that stores the payload exactly', async () => {
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        const text = toText(body);
        const res = await post('/jobs', text);
        if (res.status === 200 || res.status === 201) {
          await expectStored(res.body.id, (JSON.parse(text) as { payload: unknown }).payload);
        } else {
          expectStandardError(res);
        }
        expectNoPollution();
      }),
      { numRuns: RUNS },
    );
  });

  it.each(Object.keys(ENVELOPE_FIELDS))('POST /jobs with %s wrong: never a 5xx', async (field) => {
    await fc.assert(
      fc.asyncProperty(oneFieldWrong(field), async (body) => {
        const text = toText(body);
        const res = await post('/jobs', text);
        if (res.status === 200 || res.status === 201) {
          await expectStored(res.body.id, (JSON.parse(text) as { payload: unknown }).payload);
        } else {
          expectStandardError(res);
        }
        expectNoPollution();
      }),
      { numRuns: RUNS_PER_FIELD },
    );
  });

  it('POST /jobs/batch: never a 5xx; a 4xx naming the problem, or every job stored exactly', async () => {
    const batchBody: fc.Arbitrary<JsonNode> = fc.oneof(
      {
        arbitrary: fc.array(envelope, { minLength: 1, maxLength: 4 }).map((jobs) => object([['jobs', { t: 'array', items: jobs }]])),
        weight: 6,
      },
      {
        arbitrary: fc.tuple(fc.array(envelope, { maxLength: 2 }), hostileKey, jsonNode).map(([jobs, k, v]) =>
          object([
            ['jobs', { t: 'array', items: jobs }],
            [k, v],
          ]),
        ),
        weight: 2,
      },
      {
        arbitrary: fc
          .array(fc.constantFrom(...Object.keys(ENVELOPE_FIELDS)).chain(oneFieldWrong), { minLength: 1, maxLength: 4 })
          .map((jobs) => object([['jobs', { t: 'array', items: jobs }]])),
        weight: 4,
      },
      { arbitrary: jsonNode.map((v) => object([['jobs', v]])), weight: 1 },
      { arbitrary: anyBody, weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(batchBody, async (body) => {
        const text = toText(body);
        const res = await post('/jobs/batch', text);
        if (res.status === 201) {
          const sent = (JSON.parse(text) as { jobs: Array<{ payload: unknown }> }).jobs;
          expect(res.body.jobs).toHaveLength(sent.length);
          for (let i = 0; i < sent.length; i++) await expectStored(res.body.jobs[i].id, sent[i].payload);
        } else {
          expectStandardError(res);
        }
        expectNoPollution();
      }),
      { numRuns: RUNS },
    );
  });

  it('stores pollution attempts as plain data and leaves the server unpolluted', async () => {
    const text = `{"type":"${FREE}","payload":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":[{"__proto__":{"x":1}}]}}`;
    const res = await post('/jobs', text);
    expect(res.status).toBe(201);
    await expectStored(res.body.id, JSON.parse(text).payload);
    const row = await t.sql.query<{ keys: string[] }>(
      `SELECT array(SELECT jsonb_object_keys(payload) ORDER BY 1) AS keys FROM ${t.jobsTable} WHERE id = $1`,
      [res.body.id],
    );
    expect(row.rows[0].keys).toEqual(['__proto__', 'a', 'constructor']);
    expectNoPollution();

    for (const envelopeKey of ['__proto__', 'constructor', 'prototype']) {
      const polluting = await post('/jobs', `{"type":"${FREE}","payload":{},"${envelopeKey}":{"polluted":true}}`);
      expectStandardError(polluting);
      expect(polluting.body.details).toEqual([{ field: envelopeKey, problems: ['is not a known field'] }]);
    }
    expectNoPollution();
  });

  it('malformed JSON is a 400', async () => {
    const notJson = fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return s.trim().length > 0;
      }
    });
    await fc.assert(
      fc.asyncProperty(notJson, fc.constantFrom('/jobs', '/jobs/batch'), async (text, path) => {
        const res = await post(path, text);
        expectStandardError(res);
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([{ field: 'body', problems: ['is not valid JSON'] }]);
      }),
      { numRuns: RUNS },
    );
  });

  it('a body that is not valid UTF-8 is a 400 saying so, whatever the bytes, and nothing is stored', async () => {
    const before = (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n;
    const notUtf8 = fc.uint8Array({ minLength: 1, maxLength: 40 }).filter((bytes) => !isUtf8(bytes));
    await fc.assert(
      fc.asyncProperty(notUtf8, fc.constantFrom('/jobs', '/jobs/batch'), async (bytes, path) => {
        const job = Buffer.concat([Buffer.from(`{"type":"${FREE}","payload":{"s":"`), bytes, Buffer.from('"}}')]);
        const body = path === '/jobs' ? job : Buffer.concat([Buffer.from('{"jobs":['), job, Buffer.from(']}')]);
        const res = await request(t.app.getHttpServer()).post(path).set('Content-Type', 'application/json').serialize(asIs).send(body);
        expectStandardError(res);
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([{ field: 'body', problems: ['is not valid UTF-8'] }]);
      }),
      { numRuns: RUNS },
    );
    expect((await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n).toBe(before);
  });

  it('a body over the limit is a 413, and nothing is stored', async () => {
    const before = (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n;
    for (const path of ['/jobs', '/jobs/batch']) {
      const res = await post(path, JSON.stringify({ type: FREE, payload: { big: 'x'.repeat(BODY_LIMIT) } }));
      expect(res.status).toBe(413);
      expectStandardError(res);
    }
    expect((await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n).toBe(before);
  });

  it('a batch over the maximum count is a 400 naming jobs, and nothing is stored', async () => {
    const before = (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n;
    const jobs = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ type: FREE, payload: { i } }));
    const res = await post('/jobs/batch', JSON.stringify({ jobs }));
    expectStandardError(res);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'jobs', problems: [`must hold between 1 and ${MAX_BATCH} jobs`] }]);
    expect((await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n).toBe(before);
  });

  // ------------------------------------------------------------------------------------------------------
  // Ids, cursors and query parameters

  /** Any bytes, percent-encoded: NUL, invalid UTF-8 and lone surrogates' encodings included. */
  const urlBytes = fc.oneof(
    fc.uint8Array({ maxLength: 40 }).map((b) => [...b].map((x) => `%${x.toString(16).padStart(2, '0')}`).join('')),
    hostileString
      .filter((s) => s.length < 200)
      .map((s) => [...Buffer.from(s, 'utf8')].map((x) => `%${x.toString(16).padStart(2, '0')}`).join('')),
    fc.string({ maxLength: 40 }).map((s) => s.replace(/[^A-Za-z0-9_.~-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)),
    fc.constantFrom('%', '%e0%a4%a', '%zz', '%00', '%ed%a0%80', '%c0%80', '..%2f..%2f', '%2e%2e'),
  );

  it('bad job ids are a 400 naming id; well-formed unknown ones a 404', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          urlBytes.filter((s) => s.length > 0),
          fc.uuid(),
        ),
        fc.constantFrom('', '/cancel', '/retry'),
        async (id, suffix) => {
          const server = t.app.getHttpServer();
          const res = suffix ? await request(server).post(`/jobs/${id}${suffix}`) : await request(server).get(`/jobs/${id}`);
          expectStandardError(res);
          if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) expect(res.status).toBe(404);
          else if (res.status === 400 && res.body.details.some((d: { field: string }) => d.field === 'id'))
            expect(res.body.message).toBe('Invalid job id');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('bad cursors are a 400 naming cursor', async () => {
    const cursor = fc.oneof(
      urlBytes,
      // Cursors of the right form (an id) and near misses: any uuid, uuid-like text, old seq cursors.
      fc.uuid().map((id) => Buffer.from(`i:${id}`).toString('base64url')),
      fc.stringMatching(/^[0-9a-fA-F-]{0,40}$/).map((text) => Buffer.from(`i:${text}`).toString('base64url')),
      fc.bigInt({ min: 0n, max: 10n ** 19n - 1n }).map((seq) => Buffer.from(`s:${seq}`).toString('base64url')),
    );
    await fc.assert(
      fc.asyncProperty(cursor, async (c) => {
        const res = await request(t.app.getHttpServer()).get(`/jobs?cursor=${c}`);
        if (res.status === 200) {
          expect(Array.isArray(res.body.items)).toBe(true);
          return;
        }
        expectStandardError(res);
        expect(res.status).toBe(400);
        expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['cursor']);
      }),
      { numRuns: RUNS },
    );
  });

  it.each(['status', 'type', 'queue', 'key', 'limit', 'cursor'])(
    'any value of the %s filter of GET /jobs is a 200 or a 400 naming it',
    async (name) => {
      await fc.assert(
        fc.asyncProperty(urlBytes, async (raw) => {
          const res = await request(t.app.getHttpServer()).get(`/jobs?${name}=${raw}`);
          if (res.status === 200) {
            expect(Array.isArray(res.body.items)).toBe(true);
            return;
          }
          expectStandardError(res);
          expect(res.status).toBe(400);
          expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([name]);
        }),
        { numRuns: RUNS_PER_FIELD },
      );
    },
  );

  it('any query string on GET /jobs is a 200 or a 400', async () => {
    const param = fc.tuple(
      fc.oneof(fc.constantFrom('status', 'type', 'queue', 'key', 'limit', 'cursor'), urlBytes),
      fc.oneof(urlBytes, fc.constantFrom('PENDING', 'DEAD', '0', '1', '500', '501', '-1', '1.5', '1e3', 'NaN', '')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(param, { minLength: 1, maxLength: 4 }), async (params) => {
        const query = params.map(([k, v]) => `${k}=${v}`).join('&');
        const res = await request(t.app.getHttpServer()).get(`/jobs?${query}`);
        if (res.status === 200) {
          expect(Array.isArray(res.body.items)).toBe(true);
          return;
        }
        expectStandardError(res);
        expect(res.status).toBe(400);
      }),
      { numRuns: RUNS },
    );
  });

  // ------------------------------------------------------------------------------------------------------
  // Counterexamples the properties found (each was a 500)

  it.each(['2020-W01', '2020-W01-1', '2020-123', '2030-010', '20200101T000000Z', '2020-01-01T10Z', '2020-01-01T10.5', '2030-01-01T10:00'])(
    'runAt %s, which passes IsISO8601 but Date cannot read or misreads, is a 400 naming runAt',
    async (runAt) => {
      const res = await post('/jobs', JSON.stringify({ type: FREE, payload: {}, runAt }));
      expectStandardError(res);
      expect(res.body.details).toEqual([
        { field: 'runAt', problems: ['must be a date or a date-time with offset, such as 2030-01-01T12:00:00Z'] },
      ]);
    },
  );

  it.each(['9999-12-31T23:59:59-12:00', '9999-12-31T23:59:00-00:01', '0001-01-01T00:00:00+01:00'])(
    'runAt %s, a real time whose instant falls outside years 0001-9999 in UTC, is a 400 naming runAt, alone or in a batch',
    async (runAt) => {
      const before = (await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n;
      const single = await post('/jobs', JSON.stringify({ type: FREE, payload: {}, runAt }));
      expectStandardError(single);
      expect(single.body.details.map((d: { field: string }) => d.field)).toEqual(['runAt']);
      const batch = await post(
        '/jobs/batch',
        JSON.stringify({
          jobs: [
            { type: FREE, payload: {} },
            { type: FREE, payload: {}, runAt },
          ],
        }),
      );
      expectStandardError(batch);
      expect(batch.body.details.map((d: { field: string }) => d.field)).toEqual(['jobs[1].runAt']);
      expect((await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable}`)).rows[0].n).toBe(before);
    },
  );

  it.each(['2030-01-01', '2030-01-01T10:00Z', '2030-01-01T10:00:00+02:00', '2030-01-01T10:00:00.123456Z'])(
    'runAt %s is accepted',
    async (runAt) => {
      const res = await post('/jobs', JSON.stringify({ type: FREE, payload: {}, runAt }));
      expect(res.status).toBe(201);
      expect(new Date(res.body.runAt).getTime()).toBe(Math.floor(Date.parse(runAt)));
    },
  );

  it.each([
    ['a NUL character', 'key\\u0000x', 'contains a NUL character (\\u0000), which PostgreSQL cannot store'],
    ['a lone surrogate', 'key\\ud800x', 'contains an unpaired UTF-16 surrogate'],
  ])('an idempotency key with %s is a 400 naming idempotencyKey', async (_case, escaped, problem) => {
    for (const [path, prefix, body] of [
      ['/jobs', '', (key: string) => `{"type":"${FREE}","payload":{},"idempotencyKey":"${key}"}`],
      ['/jobs/batch', 'jobs[0].', (key: string) => `{"jobs":[{"type":"${FREE}","payload":{},"idempotencyKey":"${key}"}]}`],
    ] as const) {
      const res = await post(path, body(escaped));
      expectStandardError(res);
      expect(res.body.details).toEqual([{ field: `${prefix}idempotencyKey`, problems: [problem] }]);
    }
  });

  it.each(['type', 'queue', 'key'])('a NUL in the %s filter of GET /jobs is a 400 naming it', async (param) => {
    const res = await request(t.app.getHttpServer()).get(`/jobs?${param}=a%00b`);
    expectStandardError(res);
    expect(res.body.details).toEqual([{ field: param, problems: [`${param} must not contain NUL characters`] }]);
  });

  it.each([
    ['of the old seq form', 's:42'],
    ['whose id is not a uuid', 'i:00000000-0000-7000-8000-00000000000g'],
  ])('a cursor %s is a 400 naming cursor', async (_name, text) => {
    const res = await request(t.app.getHttpServer()).get(`/jobs?cursor=${Buffer.from(text).toString('base64url')}`);
    expectStandardError(res);
    expect(res.body.details).toEqual([{ field: 'cursor', problems: ['is not a cursor this API issued'] }]);
  });

  it('a path that is not percent-encoded UTF-8 is a 400 in the standard shape', async () => {
    for (const path of ['/jobs/%80', '/queues/%e0%a4%a/pause', '/jobs/%ff/cancel']) {
      const res = await request(t.app.getHttpServer()).get(path);
      expectStandardError(res);
      expect(res.body.details).toEqual([{ field: 'path', problems: ['is not valid percent-encoded UTF-8'] }]);
    }
  });

  it('queue names in pause and resume are a 400 when malformed', async () => {
    await fc.assert(
      fc.asyncProperty(urlBytes, fc.constantFrom('pause', 'resume'), async (queue, action) => {
        const res = await request(t.app.getHttpServer()).post(`/queues/${queue}/${action}`);
        if (res.status === 200) {
          expect(res.body).toMatchObject({ paused: action === 'pause' });
          return;
        }
        expectStandardError(res);
      }),
      { numRuns: RUNS },
    );
  });
});
