// The JSON columns of deployments, their generations and their metrics rollups.
import { z } from "zod";
import {
  deploymentReportSchema,
  estimatorDecisionSchema,
  estimatorTimelineSchema,
  reconfigurationReportSchema,
} from "./agent-protocol";
import { jsonColumn, storedDate } from "./json-column";
import { servingPlanSchema } from "./serving-plan";

/**
 * deployment.lastReport: the agent's newest heartbeat report of the deployment, with the arrival rate derived from
 * it and the estimator's timeline kept across heartbeats. Every part is optional: reports of older agents lack some.
 */
export const deploymentLastReportSchema = z
  .looseObject({
    at: storedDate,
    intervalMs: z.number().min(0),
    /** Requests per second over the report's interval. */
    arrivalRatePerS: z.number().min(0),
    requests: deploymentReportSchema.shape.requests,
    rows: deploymentReportSchema.shape.rows,
    queueDepthRows: z.number().int().min(0),
    instances: deploymentReportSchema.shape.instances,
    affinityOk: z.boolean(),
    estimator: deploymentReportSchema.shape.estimator,
    estimatorTimeline: estimatorTimelineSchema,
    lastReconfiguration: reconfigurationReportSchema,
    estimatorProposal: z.object({
      batchSize: z.number().int().positive(),
      decision: estimatorDecisionSchema,
      at: storedDate,
    }),
  })
  .partial();
export type DeploymentLastReport = z.infer<typeof deploymentLastReportSchema>;
export const deploymentLastReportColumn = jsonColumn("deployment.lastReport", deploymentLastReportSchema.nullable());

/** deployment_generation.plan: the serving plan of the generation, with its per-instance cpulists. */
export const generationPlanColumn = jsonColumn("deployment_generation.plan", servingPlanSchema);

/** deployment_generation.report: what the agent's reconfiguration to it did (null until it reports one). */
export const generationReportColumn = jsonColumn(
  "deployment_generation.report",
  reconfigurationReportSchema.nullable(),
);

/** One metrics interval's latency histograms per stage (deserialize, queue, …, total), each in its wire encoding. */
const stageHistogramsSchema = z.record(z.string(), z.string());
export type StageHistograms = z.infer<typeof stageHistogramsSchema>;

/**
 * metrics_rollup.histograms: the minute's latency histograms as the parts they came in, one per metrics message
 * (appended by the upsert, never decoded on the way in), merged by whoever reads them. A row written before parts
 * (one object, the minute already merged) reads as its one part.
 */
export const rollupHistogramsSchema = z
  .union([z.array(stageHistogramsSchema), stageHistogramsSchema])
  .transform((value): StageHistograms[] => (Array.isArray(value) ? value : [value]));
export const rollupHistogramsColumn = jsonColumn("metrics_rollup.histograms", rollupHistogramsSchema);

/**
 * The stages a rollup part may hold, in the order the contract lists them: a stage's code in metrics_rollup_part.encoded
 * is its index here (append only: stored parts keep their codes).
 */
export const ROLLUP_PART_STAGES = [
  "deserialize",
  "queue",
  "formation",
  "busy",
  "compute",
  "system",
  "serialize",
  "total",
] as const;
const ROLLUP_PART_FORMAT = 1;
/** A stored histogram's length is two bytes; the contract's 65 536 base64 characters are at most 49 152 bytes. */
const MAX_PART_HISTOGRAM_BYTES = 0xffff;
// HdrHistogram's V2 compressed encoding: its cookie (the low nibble's flags aside) and the deflated length after it.
const HDR_V2_COMPRESSED_COOKIE_BASE = 0x1c849304;
const HDR_COMPRESSED_HEADER_BYTES = 8;

export class CorruptRollupPartError extends Error {
  constructor(detail: string) {
    super(`corrupt metrics_rollup_part.encoded: ${detail}`);
    this.name = "CorruptRollupPartError";
  }
}

/** Thrown on the way in for a histogram that is not HdrHistogram's compressed encoding (the caller answers 400). */
export class BadPartHistogramError extends Error {
  constructor(readonly stage: string) {
    super(`histograms.${stage} is not the base64 of a compressed HdrHistogram (V2)`);
    this.name = "BadPartHistogramError";
  }
}

/**
 * metrics_rollup_part.encoded: one metrics message's histograms for a deployment and minute, as bytes: a format byte
 * (1), then per stage its code (ROLLUP_PART_STAGES), its length (two bytes, big-endian) and HdrHistogram's compressed
 * encoding as the agent made it (the wire's base64, decoded; never re-encoded). Binary, so a part is about a quarter
 * smaller than the base64 it came as, and small enough to stay in its row (no TOAST). A minute's histograms are its
 * parts, merged by whoever reads them.
 */
export const rollupPartColumn = {
  column: "metrics_rollup_part.encoded",
  /** The stored bytes of one part; throws BadPartHistogramError for a stage that is not a compressed HdrHistogram. */
  write(histograms: StageHistograms): Buffer<ArrayBuffer> {
    const chunks: Buffer[] = [Buffer.of(ROLLUP_PART_FORMAT)];
    for (const [code, stage] of ROLLUP_PART_STAGES.entries()) {
      const encoded = histograms[stage];
      if (!encoded) continue;
      const bytes = Buffer.from(encoded, "base64");
      if (
        bytes.length < HDR_COMPRESSED_HEADER_BYTES ||
        bytes.length > MAX_PART_HISTOGRAM_BYTES ||
        (bytes.readInt32BE(0) & ~0xf0) !== HDR_V2_COMPRESSED_COOKIE_BASE ||
        bytes.readInt32BE(4) !== bytes.length - HDR_COMPRESSED_HEADER_BYTES
      )
        throw new BadPartHistogramError(stage);
      const head = Buffer.allocUnsafe(3);
      head.writeUInt8(code, 0);
      head.writeUInt16BE(bytes.length, 1);
      chunks.push(head, bytes);
    }
    return Buffer.concat(chunks);
  },
  /** One part's histograms (or only `stage`'s), each in its wire encoding (base64), as the readers merge them. */
  read(bytes: Uint8Array, only?: (typeof ROLLUP_PART_STAGES)[number]): StageHistograms {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buffer.length === 0 || buffer[0] !== ROLLUP_PART_FORMAT)
      throw new CorruptRollupPartError(`unknown format ${buffer[0] ?? "(empty)"}`);
    const out: StageHistograms = {};
    let at = 1;
    while (at < buffer.length) {
      if (at + 3 > buffer.length) throw new CorruptRollupPartError(`truncated at byte ${at}`);
      const stage = ROLLUP_PART_STAGES[buffer[at]!];
      const length = buffer.readUInt16BE(at + 1);
      if (!stage) throw new CorruptRollupPartError(`unknown stage code ${buffer[at]}`);
      if (at + 3 + length > buffer.length) throw new CorruptRollupPartError(`truncated ${stage} histogram`);
      if (!only || stage === only) out[stage] = buffer.toString("base64", at + 3, at + 3 + length);
      at += 3 + length;
    }
    return out;
  },
};

/** A stage's encoded histograms in a rollup row's parts (none when no interval measured it). */
export function rollupStageParts(parts: readonly StageHistograms[], stage: string): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const encoded = part[stage];
    if (encoded) out.push(encoded);
  }
  return out;
}
