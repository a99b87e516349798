/**
 * The role Conveyor connects as may not create Conveyor's objects in its schema (insufficient_privilege, 42501): on
 * PostgreSQL 15 and later only the database's owner has CREATE on `public`; a schema that does not exist yet needs
 * CREATE on the database. The server's words alone ("permission denied for schema public") name neither Conveyor's
 * step nor the ways out, so start-up stops with this instead.
 */
export class MigrationPrivilegeError extends Error {
  constructor(
    readonly schema: string,
    readonly role: string,
    /** Whether the schema exists: a grant on it is the way out only then. */
    readonly schemaExists: boolean,
    options: { cause: Error },
  ) {
    super(
      (schemaExists
        ? `Cannot create Conveyor's tables in schema "${schema}" as role "${role}" (${options.cause.message}). ` +
          `Grant it CREATE on the schema (GRANT USAGE, CREATE ON SCHEMA "${schema}" TO "${role}"), use a schema it owns, `
        : `Cannot create Conveyor's schema "${schema}", which does not exist, as role "${role}" (${options.cause.message}). ` +
          `Create it for the role (CREATE SCHEMA "${schema}" AUTHORIZATION "${role}"), use a schema it may create in, `) +
        'or apply the migrations as a role that may (conveyorMigrationScript) and start with migrate: false.',
      options,
    );
    this.name = 'MigrationPrivilegeError';
  }
}
