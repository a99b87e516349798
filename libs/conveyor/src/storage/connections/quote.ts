/** Quotes an SQL identifier (schema or table name). Values always go through bind parameters instead. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes an SQL string literal; only for DDL, where bind parameters are not allowed. */
export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
