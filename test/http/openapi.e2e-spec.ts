import { randomBytes, randomUUID } from 'node:crypto';
import type { ClaimedJob, Job } from '@conveyor/client';
import { JOB_ERROR_KINDS, JOB_STATUSES } from '@conveyor/core';
import { API_DOCS_PATH, API_ROLES, ApiRole, DASHBOARD_PATH } from '@conveyor/core/http';
import { servedRoutes, toOpenApiPath } from '../support/served-routes';
import { createRestTestApp, RestTestApp } from './support/rest-test-app';

interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  'x-required-role'?: ApiRole;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  info: { description: string };
  components: {
    securitySchemes?: Record<string, { type: string; scheme?: string; description?: string }>;
    schemas: Record<string, Schema>;
  };
}

/** The fields of the client's `Job` and `ClaimedJob`, each once: the compiler refuses a missing or an extra one. */
const CLIENT_JOB_FIELDS = Object.keys({
  id: true,
  seq: true,
  queue: true,
  type: true,
  payload: true,
  status: true,
  priority: true,
  runAt: true,
  attempts: true,
  maxAttempts: true,
  snoozes: true,
  lastError: true,
  result: true,
  errors: true,
  idempotencyKey: true,
  uniqueKey: true,
  lockedBy: true,
  lockedUntil: true,
  version: true,
  createdAt: true,
  updatedAt: true,
  startedAt: true,
  finishedAt: true,
  progress: true,
} satisfies Record<keyof Job, true>);
const CLIENT_CLAIMED_JOB_FIELDS = Object.keys({
  id: true,
  queue: true,
  type: true,
  payload: true,
  priority: true,
  attempts: true,
  maxAttempts: true,
  runAt: true,
  createdAt: true,
  leaseToken: true,
  lockedUntil: true,
} satisfies Record<keyof ClaimedJob, true>);

const KEYS = Object.fromEntries(API_ROLES.map((role) => [role, `${role}-${randomBytes(16).toString('hex')}`])) as Record<ApiRole, string>;

/** Routes that are user interfaces rather than API: the docs themselves and the dashboard's files. */
const isUiRoute = (path: string) =>
  [API_DOCS_PATH, DASHBOARD_PATH].some((ui) => path === ui || path.startsWith(`${ui}/`) || path.startsWith(`${ui}-`));

/**
 * The OpenAPI document at /docs-json, against what the app really serves: every route (read from the Express
 * router, so routes added later are covered without touching this file) is documented, and every answer the
 * routes give to keyless, weak-key and admin requests is among the documented ones.
 */
describe('OpenAPI document', () => {
  let t: RestTestApp;
  let doc: OpenApiDocument;

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
  /** A concrete URL for a documented path: a fresh UUID for ids, a probe queue for queues. */
  const concrete = (path: string) =>
    path
      .replace(/\{id\}/g, randomUUID())
      .replace(/\{queue\}/g, 'openapi-probe')
      .replace(/\{[^}]+\}/g, 'x');
  const call = (method: string, path: string, key?: string) => {
    const req = t.api()[method.toLowerCase() as 'get'](concrete(path));
    if (key) req.set('Authorization', `Bearer ${key}`);
    // An event stream does not end: its status is the answer, then the connection is dropped.
    if (path.endsWith('/events')) {
      req.buffer(true).parse((res, done) => {
        done(null, null);
        (res as unknown as { destroy(): void }).destroy();
      });
    }
    return method === 'GET' || method === 'DELETE' ? req : req.send({});
  };

  beforeAll(async () => {
    t = await createRestTestApp('http_openapi', { httpOptions: { apiKeys: API_ROLES.map((role) => ({ role, key: KEYS[role] })) } });
    const res = await t.api().get(`${API_DOCS_PATH}-json`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body as OpenApiDocument;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('is served without a key, with the Swagger UI at /docs, and describes bearer keys', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.components.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // A reader of the document learns every role a key may have, from the overview and from the scheme.
    for (const role of API_ROLES) {
      expect({ role, overview: doc.info.description.includes(`${role} keys`) }).toEqual({ role, overview: true });
      expect({ role, scheme: doc.components.securitySchemes?.bearer.description?.includes(role) }).toEqual({ role, scheme: true });
    }
    const ui = await t.api().get(API_DOCS_PATH).expect(200);
    expect(ui.headers['content-type']).toMatch(/^text\/html/);
    expect(ui.text).toContain('swagger-ui');
    // Helmet's headers are on the docs too; the UI's scripts are files, which its CSP allows.
    expect(ui.headers['content-security-policy']).toContain("script-src 'self'");
    // Over plain HTTP (not localhost), upgrade-insecure-requests would make browsers fetch the UI's files over https.
    expect(ui.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(ui.text).not.toMatch(/<script>(?!\s*<\/script>)/);
  });

  it('documents exactly the routes the app serves', () => {
    const served = servedRoutes(t.app)
      .filter((r) => !isUiRoute(r.path))
      .map((r) => `${r.method} ${toOpenApiPath(r.path)}`);
    const documented = operations().map((o) => `${o.method} ${o.path}`);
    // Sanity: the enumeration sees the routes every build has.
    expect(served).toEqual(expect.arrayContaining(['POST /jobs', 'GET /jobs/{id}', 'GET /queues', 'GET /health/ready']));
    expect([...new Set(documented)].sort()).toEqual([...new Set(served)].sort());
  });

  describe('job shapes', () => {
    const schema = (name: string) => doc.components.schemas[name];
    /** Every property name a schema reaches, through references, arrays and compositions. */
    const reachedFields = (s: Schema | undefined, seen = new Set<string>()): string[] => {
      if (!s) return [];
      if (s.$ref) {
        if (seen.has(s.$ref)) return [];
        seen.add(s.$ref);
        return reachedFields(schema(s.$ref.replace('#/components/schemas/', '')), seen);
      }
      const nested = [...Object.values(s.properties ?? {}), s.items, ...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])];
      return [...Object.keys(s.properties ?? {}), ...nested.flatMap((n) => reachedFields(n, seen))];
    };

    it("a job is documented with the client's Job fields, without the lease token; a claimed job with ClaimedJob's, token included", () => {
      expect(Object.keys(schema('JobDto').properties!).sort()).toEqual([...CLIENT_JOB_FIELDS].sort());
      expect(CLIENT_JOB_FIELDS).not.toContain('leaseToken');
      expect(Object.keys(schema('ClaimedJobDto').properties!).sort()).toEqual([...CLIENT_CLAIMED_JOB_FIELDS].sort());
      expect(schema('ClaimedJobDto').required).toContain('leaseToken');
    });

    it("documents the job's statuses and error kinds as the engine defines them", () => {
      /** The values of a property's enum, through the named enum schema it refers to. */
      const enumOf = (s: Schema): unknown => {
        const ref = s.$ref ?? s.allOf?.[0]?.$ref;
        return ref ? enumOf(schema(ref.replace('#/components/schemas/', ''))) : (s as { enum?: string[] }).enum;
      };
      expect(enumOf(schema('JobDto').properties!.status)).toEqual([...JOB_STATUSES]);
      expect(enumOf(schema('JobErrorEntryDto').properties!.kind)).toEqual([...JOB_ERROR_KINDS]);
      // The client types an error body's jobStatus as JobStatus: a generated client should too.
      expect(enumOf(schema('ErrorBodyDto').properties!.jobStatus)).toEqual([...JOB_STATUSES]);
    });

    it('the claim is the only answer that documents a lease token', () => {
      const withToken = operations()
        .filter(({ op }) =>
          Object.entries(op.responses)
            .filter(([status]) => /^2\d\d$/.test(status))
            .some(([, r]) => Object.values(r.content ?? {}).some((c) => reachedFields(c.schema).includes('leaseToken'))),
        )
        .map(({ method, path }) => `${method} ${path}`);
      expect(withToken).toEqual(['POST /queues/{queue}/claim']);
    });

    it('payloads and results are documented as any JSON, as they are stored and answered', async () => {
      /** Whether a JSON value fits a schema, as far as the keywords of these fields go (OpenAPI 3.0's nullable). */
      const fits = (s: Schema, value: unknown): boolean => {
        if (value === null && s.nullable) return true;
        if (s.anyOf) return s.anyOf.some((branch) => fits(branch, value));
        if (s.oneOf) return s.oneOf.filter((branch) => fits(branch, value)).length === 1;
        const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
        return s.type === undefined || s.type === kind;
      };
      const anyJson: Record<string, Schema> = {
        'JobDto.payload': schema('JobDto').properties!.payload,
        'JobDto.result': schema('JobDto').properties!.result,
        'SubmitJobDto.payload': schema('SubmitJobDto').properties!.payload,
        'ClaimedJobDto.payload': schema('ClaimedJobDto').properties!.payload,
        'CompleteJobDto.result': schema('CompleteJobDto').properties!.result,
      };
      const auth = { Authorization: `Bearer ${KEYS.admin}` };
      const values = [{ to: 'ada' }, ['a', 1], 'text', 42, true];
      for (const payload of values) {
        const created = await t.api().post('/jobs').set(auth).send({ type: 'TEST_RECORD', payload }).expect(201);
        expect(created.body.payload).toEqual(payload);
        for (const [field, s] of Object.entries(anyJson))
          expect({ field, payload, fits: fits(s, payload) }).toEqual({ field, payload, fits: true });
      }
      expect(fits(anyJson['JobDto.result'], null)).toBe(true);
    });

    it('every field an answer gives as null is documented as admitting null, by OpenAPI 3.0 rules', async () => {
      /** OpenAPI 3.0: `nullable` only widens a `type` in the same schema object; a referenced schema keeps its own. */
      const admitsNull = (s: Schema): boolean => {
        if (s.$ref) return admitsNull(schema(s.$ref.replace('#/components/schemas/', '')));
        if (s.anyOf) return s.anyOf.some(admitsNull);
        if (s.oneOf) return s.oneOf.filter(admitsNull).length === 1;
        if (s.allOf && !s.allOf.every(admitsNull)) return false;
        return s.nullable === true && s.type !== undefined;
      };
      const auth = { Authorization: `Bearer ${KEYS.admin}` };
      const job = (await t.api().post('/jobs').set(auth).send({ type: 'TEST_RECORD', payload: {} }).expect(201)).body;
      const bulk = (
        await t
          .api()
          .post('/jobs/bulk/delete')
          .set(auth)
          .send({ ids: [randomUUID()] })
          .expect(200)
      ).body;
      const nullFields = [
        ...Object.keys(job)
          .filter((k) => job[k] === null)
          .map((k) => ['JobDto', k]),
        ...Object.keys(bulk.results[0])
          .filter((k) => bulk.results[0][k] === null)
          .map((k) => ['BulkItemResultDto', k]),
      ];
      expect(nullFields).toEqual(
        expect.arrayContaining([
          ['JobDto', 'progress'],
          ['JobDto', 'result'],
          ['BulkItemResultDto', 'status'],
        ]),
      );
      for (const [dto, field] of nullFields)
        expect({ dto, field, admitsNull: admitsNull(schema(dto).properties![field]) }).toEqual({ dto, field, admitsNull: true });
    });

    it('a job answer has exactly the documented fields', async () => {
      const auth = { Authorization: `Bearer ${KEYS.admin}` };
      const created = await t
        .api()
        .post('/jobs')
        .set(auth)
        .send({ type: 'TEST_RECORD', payload: { shape: true } })
        .expect(201);
      const read = await t.api().get(`/jobs/${created.body.id}`).set(auth).expect(200);
      for (const job of [created.body, read.body])
        expect(Object.keys(job).sort()).toEqual(Object.keys(schema('JobDto').properties!).sort());
    });
  });

  it('every operation documents a 2xx answer, and protected ones their 401, 429 and (above the weakest role) 403', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      expect({ where, has2xx: statuses.some((s) => /^2\d\d$/.test(s)) }).toEqual({ where, has2xx: true });
      if (!op.security) continue;
      expect({ where, security: op.security }).toEqual({ where, security: [{ bearer: [] }] });
      const role = op['x-required-role'];
      expect({ where, role: role && API_ROLES.includes(role) }).toEqual({ where, role: true });
      const needed = ['401', '429', ...(API_ROLES.indexOf(role!) > 0 ? ['403'] : [])];
      expect({ where, statuses: statuses.filter((s) => needed.includes(s)).sort() }).toEqual({ where, statuses: needed.sort() });
      for (const s of statuses.filter((s) => /^4\d\d$/.test(s))) {
        expect({ where, s, schema: op.responses[s].content?.['application/json']?.schema.$ref }).toEqual({
          where,
          s,
          schema: '#/components/schemas/ErrorBodyDto',
        });
      }
    }
  });

  it('every answer a route gives without a key, with each role and with an admin key is documented', async () => {
    // Each call carries a fresh id or a probe queue and an empty body, so it changes nothing that matters.
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      const documented = Object.keys(op.responses).map(Number);
      const anonymous = (await call(method, path)).status;
      expect({ where, anonymous, documented: documented.includes(anonymous) }).toEqual({ where, anonymous, documented: true });
      expect({ where, protectedIff401: Boolean(op.security) }).toEqual({ where, protectedIff401: anonymous === 401 });
      for (const role of API_ROLES) {
        const status = (await call(method, path, KEYS[role])).status;
        expect({ where, role, status, documented: documented.includes(status) }).toEqual({ where, role, status, documented: true });
        if (op.security) {
          const allowed = API_ROLES.indexOf(role) >= API_ROLES.indexOf(op['x-required-role']!);
          expect({ where, role, forbidden: status === 403 }).toEqual({ where, role, forbidden: !allowed });
        }
      }
    }
  });
});
