/** One answer the service gave under load. */
export interface LoadAnswer {
  route: string;
  status: number;
  retryAfter: string | null;
  /** The job's id, for an answered submission. */
  jobId?: string;
  sentAt: number;
  answeredAt: number;
}

/** Service settings of the fault tests: quick polls, leases and retries, and a short wait for a pooled connection. */
export const FAULT_TEST_SERVICE_ENV: Record<string, string> = {
  POLL_INTERVAL_MS: '200',
  LEASE_MS: '4000',
  HEARTBEAT_INTERVAL_MS: '1000',
  MAINTENANCE_INTERVAL_MS: '500',
  DB_POOL_TIMEOUT_MS: '1000',
  BACKOFF_BASE_MS: '100',
  MAX_ATTEMPTS: '25',
};

/** A running load: every answer so far, and how to end it. */
export interface ServiceLoad {
  answers: LoadAnswer[];
  /** Ends the load once the requests in flight are answered. */
  stop(): Promise<void>;
}

/**
 * Four submitters of SEND_EMAIL jobs and a readiness probe, each back to back, against the service at `baseUrl`,
 * recording every answer; a request that fails outright (connection refused) is not an answer and is sent again.
 */
export function startServiceLoad(baseUrl: string, subject: string): ServiceLoad {
  const answers: LoadAnswer[] = [];
  let loading = true;
  const ask = async (route: string, init?: RequestInit): Promise<void> => {
    const sentAt = Date.now();
    const res = await fetch(`${baseUrl}${route}`, init);
    const body = (await res.json().catch(() => ({}))) as { id?: string };
    answers.push({ route, status: res.status, retryAfter: res.headers.get('retry-after'), jobId: body.id, sentAt, answeredAt: Date.now() });
  };
  const submit = () =>
    ask('/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'ops@example.test', subject, text: 'hello' } }),
    });
  const loops = [
    ...Array.from({ length: 4 }, async () => {
      while (loading) await submit().catch(() => undefined);
    }),
    (async () => {
      while (loading) await ask('/health/ready').catch(() => undefined);
    })(),
  ];
  return {
    answers,
    stop: async () => {
      loading = false;
      await Promise.all(loops);
    },
  };
}
