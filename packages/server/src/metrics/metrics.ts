// Types and the no-op recorder only: services.ts and domain modules import this, so it imports no
// code (prom-client lives in prometheus.ts, which only the composition root loads).

/** What became of a final PDF that could not be produced (documents/final-pdf-job.ts). */
export type FinalPdfFailureOutcome = 'retry' | 'given_up'

/** The counts domain code records; everything else is read when Prometheus scrapes. */
export interface MetricsRecorder {
  /** A request refused by a rate-limit policy (rate-limits/consume-rate-limit.ts). */
  rateLimitRefused(policy: string): void
  /** A final PDF that failed: retried later, or given up until an operator reruns it. */
  finalPdfFailed(outcome: FinalPdfFailureOutcome): void
}

/** The instance's metrics: the recorder, the HTTP door's timings and the text Prometheus reads. */
export interface Metrics extends MetricsRecorder {
  /** False when neither METRICS_TOKEN nor METRICS_PORT is set: no route, no hook, nothing recorded. */
  readonly enabled: boolean
  /** One answered HTTP request: `route` is the route's pattern (`/api/v1/documents/:id`), or `unmatched`. */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void
  /** Every metric in Prometheus's text exposition format, the gauges read now. */
  scrape(): Promise<{ contentType: string; text: string }>
}

/** Metrics off: every call does nothing (the default, and what tests get unless they turn metrics on). */
export const noMetrics: Metrics = {
  enabled: false,
  rateLimitRefused: () => undefined,
  finalPdfFailed: () => undefined,
  observeRequest: () => undefined,
  scrape: () => Promise.reject(new Error('metrics are off: set METRICS_TOKEN or METRICS_PORT')),
}
