export * from './configure-http';
export * from './conveyor-exception.filter';
export * from './conveyor-http.module';
export * from './error-body';
