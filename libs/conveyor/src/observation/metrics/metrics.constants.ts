/**
 * DI token of this app's Prometheus `Registry`. Inject it to add the host app's own metrics to what
 * `GET /metrics` serves. Private per app (not prom-client's global registry), so several apps in one
 * process — tests, mostly — do not collide on metric names.
 */
export const CONVEYOR_METRICS_REGISTRY = Symbol('CONVEYOR_METRICS_REGISTRY');

/** Prefix of every engine metric. */
export const METRIC_PREFIX = 'conveyor_';
