/**
 * Latency histograms shared by the agent, the profiler, the load generator and the control plane: an HdrHistogram
 * (hdr-histogram-js, pure JS) recording integer microseconds with 3 significant digits, so every percentile is
 * within 0.1% of the exact sample percentile (the agents' metrics intervals use 2 digits: within 0.8%), memory stays
 * bounded whatever the sample count, and histograms merge exactly. One serialized form travels on every wire: the base64 of HdrHistogram's compressed encoding (the
 * format the Java/Go/Rust ports also read).
 */
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from "hdr-histogram-js";
import { StatsInputError, requireFiniteNumber } from "./errors";

export const HISTOGRAM_SIGNIFICANT_DIGITS = 3;
/**
 * The agents' metrics-interval histograms (what the dashboards, alerts and planning pages read): 2 significant
 * digits, 128 sub-buckets an octave, so a reported percentile is at most 1/128 (0.79 %) above the exact sample's value
 * (its bucket's highest equivalent value), and the encoding about half the size of 3 digits' (each merged interval
 * is stored, once a metrics message).
 */
export const INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS = 2;
/** A decoded histogram comes from another process; cap what one string may make us allocate. */
export const MAX_ENCODED_HISTOGRAM_LENGTH = 1 << 20;
const US_PER_MS = 1000;
// 64-bit (float) buckets: merged fleet-wide histograms never overflow a count.
const BUCKET_SIZE = 64;

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What hdr-histogram-js's JS histogram has and its typings leave out. */
interface HdrInternals {
  totalCount: number;
  countsArrayLength: number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
  medianEquivalentValue(value: number): number;
}

type SignificantDigits = 1 | 2 | 3 | 4 | 5;

function newHdr(significantDigits: SignificantDigits): Histogram {
  return build({
    bitBucketSize: BUCKET_SIZE,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2,
    numberOfSignificantValueDigits: significantDigits,
    useWebAssembly: false,
  });
}

export class LatencyHistogram {
  private constructor(private readonly hdr: Histogram) {}

  /** A histogram of the given precision (3 significant digits unless said otherwise: see the constants above). */
  static create(significantDigits: SignificantDigits = HISTOGRAM_SIGNIFICANT_DIGITS): LatencyHistogram {
    return new LatencyHistogram(newHdr(significantDigits));
  }

  /** Reads the wire form written by encode(). */
  static decode(encoded: string): LatencyHistogram {
    if (typeof encoded !== "string" || encoded.length === 0)
      throw new StatsInputError("bad_encoding", "encoded", "must be a non-empty string");
    if (encoded.length > MAX_ENCODED_HISTOGRAM_LENGTH) {
      throw new StatsInputError("bad_encoding", "encoded", `longer than ${MAX_ENCODED_HISTOGRAM_LENGTH} characters`);
    }
    let hdr: Histogram;
    try {
      hdr = decodeFromCompressedBase64(encoded, BUCKET_SIZE, false);
    } catch (error) {
      throw new StatsInputError(
        "bad_encoding",
        "encoded",
        `not a compressed HdrHistogram: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!Number.isFinite(hdr.totalCount) || hdr.totalCount < 0)
      throw new StatsInputError("bad_encoding", "encoded", "decoded a corrupt count");
    // Decoded histograms start fixed-size; later records and merges must still fit.
    hdr.autoResize = true;
    return new LatencyHistogram(hdr);
  }

  /**
   * A new histogram holding every sample of the given ones (the inputs are not changed), at the coarsest precision
   * among them: finer buckets would only spread a coarse bucket's samples over its lowest value.
   */
  static merge(histograms: readonly LatencyHistogram[]): LatencyHistogram {
    let digits = HISTOGRAM_SIGNIFICANT_DIGITS;
    for (const h of histograms) digits = Math.min(digits, h.significantDigits);
    const merged = LatencyHistogram.create(digits as SignificantDigits);
    for (const h of histograms) merged.add(h);
    return merged;
  }

  /** Records one latency in milliseconds, kept as whole microseconds (sub-µs detail is below the 3-digit precision anyway). */
  recordMs(latencyMs: number, count = 1): void {
    this.recordUs(Math.round(requireFiniteNumber("latencyMs", latencyMs) * US_PER_MS), count);
  }

  recordUs(latencyUs: number, count = 1): void {
    requireFiniteNumber("latencyUs", latencyUs);
    if (latencyUs < 0) throw new StatsInputError("out_of_range", "latencyUs", `must be ≥ 0, got ${latencyUs}`);
    if (!Number.isSafeInteger(count) || count < 1)
      throw new StatsInputError("not_integer", "count", `must be a positive integer, got ${count}`);
    this.hdr.recordValueWithCount(Math.round(latencyUs), count);
  }

  /** Adds every sample of another histogram into this one. */
  add(other: LatencyHistogram): void {
    this.hdr.add(other.hdr);
  }

  reset(): void {
    this.hdr.reset();
  }

  /** The precision it records at (decoded histograms keep the sender's). */
  get significantDigits(): number {
    return this.hdr.numberOfSignificantValueDigits;
  }

  get count(): number {
    return this.hdr.totalCount;
  }

  /**
   * The latency at a percentile in [0, 100] (99 = p99), in ms: the highest value equivalent (within 3 digits) to
   * the sample at that rank. 0 for an empty histogram, like HdrHistogram itself; check `count` first.
   */
  percentileMs(percentile: number): number {
    requireFiniteNumber("percentile", percentile);
    if (percentile < 0 || percentile > 100)
      throw new StatsInputError("out_of_range", "percentile", `must be in [0, 100], got ${percentile}`);
    if (this.hdr.totalCount === 0) return 0;
    return this.hdr.getValueAtPercentile(percentile) / US_PER_MS;
  }

  /**
   * The mean in ms (0 when empty), without the percentiles summary() also computes: HdrHistogram's own mean (each
   * recorded bucket's median-equivalent value times its count, in bucket order, over the total), summed straight
   * over the counts rather than through its iterator, which costs many times more (the alert evaluator takes the
   * mean of every rollup part of the fleet).
   */
  meanMs(): number {
    const hdr = this.hdr as unknown as HdrInternals;
    if (hdr.totalCount === 0) return 0;
    let total = 0;
    for (let i = 0; i < hdr.countsArrayLength; i++) {
      const count = hdr.getCountAtIndex(i);
      if (count > 0) total += hdr.medianEquivalentValue(hdr.valueFromIndex(i)) * count;
    }
    return total / hdr.totalCount / US_PER_MS;
  }

  /** Count, mean, p50/p90/p95/p99 and max in ms; all zero (with count 0) when nothing was recorded. */
  summary(): LatencySummary {
    const count = this.hdr.totalCount;
    if (count === 0) return { count: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
    return {
      count,
      meanMs: this.hdr.mean / US_PER_MS,
      p50Ms: this.percentileMs(50),
      p90Ms: this.percentileMs(90),
      p95Ms: this.percentileMs(95),
      p99Ms: this.percentileMs(99),
      // The top of the max's bucket, not the raw max: the raw max does not survive the wire, and a summary must not
      // change when its histogram is encoded and decoded.
      maxMs: this.percentileMs(100),
    };
  }

  /** The one wire form: base64 of the compressed HdrHistogram encoding. */
  encode(): string {
    return encodeIntoCompressedBase64(this.hdr);
  }
}
