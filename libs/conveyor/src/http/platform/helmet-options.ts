import type { HelmetOptions } from 'helmet';

/**
 * Helmet's defaults, except `upgrade-insecure-requests`: its default CSP already lets the dashboard and the
 * Swagger UI load their own script and style files, but on a service reached over plain HTTP (an internal
 * network, TLS ended at a proxy) browsers would fetch those files over https from a port that does not speak
 * it, and the pages break.
 */
export const HELMET_OPTIONS: HelmetOptions = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };
