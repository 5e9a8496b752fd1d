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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A parameters record the schema takes as it is: flat strings, numbers, booleans and nulls. */
function plainParameters(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isRecord(v)) return false;
  for (const key in v) {
    if (key === "__proto__") return false;
    const value = v[key];
    const kind = typeof value;
    if (value !== null && kind !== "string" && kind !== "number" && kind !== "boolean" && kind !== "undefined")
      return false;
  }
  return true;
}

function plainShape(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const d of v) if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0) return false;
  return true;
}

/**
 * The common request's check without the schema's walk and copy: a request in the plain shape (every field of the
 * schema's type, nothing nested where it is not allowed) is taken as it is; anything else goes through the schema,
 * which says what is wrong. Only what the schema accepts passes here, so the two agree on every request.
 */
export function plainInferRequest(json: unknown): OipInferRequest | undefined {
  if (!isRecord(json)) return undefined;
  if (json.id !== undefined && typeof json.id !== "string") return undefined;
  if (!plainParameters(json.parameters)) return undefined;
  const inputs = json.inputs;
  if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
  for (const input of inputs) {
    if (!isRecord(input) || typeof input.name !== "string" || typeof input.datatype !== "string") return undefined;
    if (!plainShape(input.shape) || !plainParameters(input.parameters)) return undefined;
  }
  const outputs = json.outputs;
  if (outputs !== undefined) {
    if (!Array.isArray(outputs)) return undefined;
    for (const output of outputs)
      if (!isRecord(output) || typeof output.name !== "string" || !plainParameters(output.parameters)) return undefined;
  }
  return json as OipInferRequest;
}
