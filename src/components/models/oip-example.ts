// A copyable Open Inference Protocol (KServe v2) request for a model: a one-line Node script that writes a request
// of zeros at batch 1 (the body of a 3×224×224 image is too long to paste), then curl to an agent serving it.
import { OIP_ONLY_NAMES, oipDatatypeOfOnnx } from "@/contracts/oip-datatypes";
import { concreteShape, servingAxes } from "@/core/model-analysis/serving-axes";

export interface OipInput {
  name: string;
  dataType: string;
  /** Batch-1 shape: the batch is 1, other dynamic dimensions at their serving values. */
  shape: number[];
}

export function oipDatatype(dataType: string): string {
  return oipDatatypeOfOnnx(dataType) ?? OIP_ONLY_NAMES[dataType] ?? dataType.toUpperCase();
}

/**
 * Batch-1 shapes from the file's declared shapes, decided as the agent decides them (servingAxes): each input's
 * batch axis at 1, every other dynamic dimension at its serving value. Throws ModelAnalysisInputError naming a
 * dimension that has no value.
 */
export function batchOneInputs(
  inputs: ReadonlyArray<{ name: string; dataType: string; shape: ReadonlyArray<number | string | null> | null }>,
  dims: Record<string, number>,
  batchAxes: Record<string, number | null> = {},
): OipInput[] {
  const axes = servingAxes(
    inputs,
    [],
    Object.fromEntries(Object.entries(batchAxes).filter(([name]) => inputs.some((i) => i.name === name))),
  );
  return inputs.map((input, index) => ({
    name: input.name,
    dataType: input.dataType,
    shape: concreteShape(input, axes.inputs[index]!, 1, dims, axes.batchSymbol),
  }));
}

/** Inside a single-quoted shell word, a ' is written '\''. */
const shellSingle = (text: string) => text.replace(/'/g, "'\\''");

export function oipCurlExample(modelName: string, inputs: readonly OipInput[], baseUrl: string): string {
  const tensors = inputs.map((i) => {
    const count = i.shape.reduce((a, b) => a * b, 1);
    const fill = i.dataType === "bool" ? "false" : i.dataType === "string" ? '""' : "0";
    return `{name:${JSON.stringify(i.name)},shape:${JSON.stringify(i.shape)},datatype:${JSON.stringify(oipDatatype(i.dataType))},data:new Array(${count}).fill(${fill})}`;
  });
  const script = `process.stdout.write(JSON.stringify({inputs:[${tensors.join(",")}]}))`;
  return [
    // Quoted: the address is what an agent reported, and a pasted snippet must never run part of it.
    `AGENT='${shellSingle(baseUrl)}'`,
    `node -e '${shellSingle(script)}' > request.json`,
    `curl -sS -X POST "$AGENT/v2/models/${encodeURIComponent(modelName)}/infer" \\`,
    `  -H 'content-type: application/json' --data-binary @request.json`,
  ].join("\n");
}
