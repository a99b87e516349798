import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { conveyorMigrationScript } from '@conveyor/core';
import { MigrationPrivilegeError } from '@conveyor/core/storage/migrations/migration-privilege.error';
import { standaloneMigrator } from '../support/standalone-migrator';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';

/**
 * Migrating as a role with the least a DBA hands an application: no CREATE on the database (PUBLIC has none), CREATE
 * on its schema or not even that (PostgreSQL 15 gives CREATE on `public` to the database's owner only).
 */
describe('migrations as a role without CREATE on the database', () => {
  const role = `conveyor_t_${randomBytes(4).toString('hex')}`;
  let admin: Pool;
  let asRole: Pool;
  const schemas: TestSchema[] = [];
  const schemaGranted = async (label: string, privileges: string) => {
    const schema = await createTestSchema(label);
    schemas.push(schema);
    await admin.query(`GRANT ${privileges} ON SCHEMA ${schema.schema} TO ${role}`);
    return schema.schema;
  };

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    const url = process.env[TEST_DATABASE_URL_ENV]!;
    admin = new Pool({ connectionString: url, max: 2 });
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'conveyor'`);
    const roleUrl = new URL(url);
    roleUrl.username = role;
    roleUrl.password = 'conveyor';
    asRole = new Pool({ connectionString: roleUrl.toString(), max: 2 });
  });

  afterAll(async () => {
    await asRole?.end();
    for (const schema of schemas) await schema.drop();
    await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
    Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose']);
  });

  it('migrates a schema it was given CREATE on, and finds it current', async () => {
    const migrator = standaloneMigrator(asRole, await schemaGranted('privmigrate', 'USAGE, CREATE'));
    await migrator.migrate();
    expect(await migrator.isUpToDate()).toBe(true);
  });

  it("runs the migration script on such a schema, as a host's migration tool would", async () => {
    const schema = await schemaGranted('privscript', 'USAGE, CREATE');
    await asRole.query(`BEGIN; ${conveyorMigrationScript({ schema })} COMMIT;`);
    expect(await standaloneMigrator(asRole, schema).isUpToDate()).toBe(true);
  });

  it('stops with an error that says to create the schema when it is missing and the role may not create it', async () => {
    const schema = `conveyor_t_absent_${randomBytes(4).toString('hex')}`;
    const failure = await standaloneMigrator(asRole, schema)
      .migrate()
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(MigrationPrivilegeError);
    expect((failure as Error).message).toContain(
      `schema "${schema}", which does not exist, as role "${role}" (permission denied for database`,
    );
    expect((failure as Error).message).toContain(`CREATE SCHEMA "${schema}" AUTHORIZATION "${role}"`);
    expect((failure as Error).message).not.toContain('GRANT USAGE, CREATE ON SCHEMA');
  });

  it('stops with an error that names the schema, the role and the grant when it may not create there', async () => {
    const schema = await schemaGranted('privusage', 'USAGE');
    const failure = await standaloneMigrator(asRole, schema)
      .migrate()
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(MigrationPrivilegeError);
    expect((failure as Error).message).toContain(`schema "${schema}" as role "${role}" (permission denied for schema ${schema})`);
    expect((failure as Error).message).toContain(`GRANT USAGE, CREATE ON SCHEMA "${schema}" TO "${role}"`);
  });
});
