// A batching sweep's candidates (the batch window and largest batch to try) and the points measured for them: the
// sweep form's input and the batching_sweep row's JSON columns.
import { z } from "zod";
import { jsonColumn } from "./json-column";

export const sweepCandidateSchema = z.object({
  windowMs: z.number().min(0, "the window must be ≥ 0 ms").max(60_000, "the window must be at most 60,000 ms"),
  maxBatch: z
    .number()
    .int("the max batch must be a whole number")
    .min(1, "the max batch must be ≥ 1")
    .max(65_536, "the max batch must be at most 65,536"),
});
export type SweepCandidate = z.infer<typeof sweepCandidateSchema>;

/** One candidate as measured: the generation it ran as, its load test and what that measured (null: not measured). */
export const sweepPointSchema = sweepCandidateSchema.extend({
  generation: z.number().int().min(1),
  loadTestId: z.string().nullable(),
  status: z.enum(["done", "failed"]),
  offeredPerS: z.number().nullable(),
  okPerS: z.number().nullable(),
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  meanMs: z.number().nullable(),
  requests: z.number().nullable(),
  error: z.string().nullable(),
});
export type SweepPoint = z.infer<typeof sweepPointSchema>;

/** batching_sweep.candidates: the candidates in the order they are measured. */
export const sweepCandidatesColumn = jsonColumn("batching_sweep.candidates", z.array(sweepCandidateSchema));

/** batching_sweep.points: the candidates measured so far, in order. */
export const sweepPointsColumn = jsonColumn("batching_sweep.points", z.array(sweepPointSchema));
