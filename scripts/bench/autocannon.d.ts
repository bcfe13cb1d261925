// autocannon 8 ships no type declarations: the part of its programmatic API the
// benchmark uses, from its README ("API" and "Results").
declare module 'autocannon' {
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Requests to send in all, instead of a duration. */
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    timeout?: number;
  }

  /** Percentiles of a histogram (latency in milliseconds, requests per second). */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram & { totalCount: number };
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export default function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
}
