// The Open Inference Protocol (KServe v2) inference request as JSON (HTTP's header, and what gRPC requests are
// mapped to): the agent decodes it with this schema, the load generator writes it to this type.
import { z } from "zod";

/** A tensor's `data`: flat or nested per its shape, numbers or booleans. */
export type OipTensorData = number | boolean | OipTensorData[];

// The protocol's parameter values are strings, numbers and booleans (a gRPC parameter that names no choice maps to
// undefined). Never a nested value: a request 200 000 arrays deep is refused here, not walked.
const parameterValue = z.union([z.string(), z.number(), z.boolean(), z.null()]).optional();
const parameters = z.record(z.string(), parameterValue).optional();

export const oipInferRequestSchema = z.object({
  id: z.string().optional(),
  parameters,
  inputs: z
    .array(
      z.object({
        name: z.string(),
        shape: z.array(z.number().int().min(0)),
        datatype: z.string(),
        parameters,
        // Typed here, checked by the decoder leaf by leaf against the datatype and shape: a schema pass over a 150 528-value
        // image would cost as much as the decode itself.
        data: z.custom<OipTensorData>().optional(),
      }),
    )
    .min(1, "at least one input is required"),
  outputs: z.array(z.object({ name: z.string(), parameters })).optional(),
});
export type OipInferRequest = z.infer<typeof oipInferRequestSchema>;
export type OipParameters = Record<string, z.infer<typeof parameterValue>>;
