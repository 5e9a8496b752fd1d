// Request inputs from the model's OIP metadata (GET /v2/models/{name}): shapes with the batch dimension set and
// dynamic ones given, values drawn from a seed (or read from files), so a run sends the same tensors every time.
import { z } from "zod";
import { Prng } from "@packrat/core/stats/prng";
import { LoadgenInputError } from "./errors";
import { isOipDatatype, OIP_DATATYPES, writeElement, type OipDatatype } from "@packrat/contracts/oip-datatypes";

const tensorMetadataSchema = z.object({
  name: z.string().min(1),
  datatype: z.string(),
  shape: z.array(z.number().int().min(-1)),
});

export const modelMetadataSchema = z.object({
  name: z.string(),
  versions: z.array(z.string()).optional(),
  platform: z.string().optional(),
  inputs: z.array(tensorMetadataSchema).min(1),
  outputs: z.array(tensorMetadataSchema),
});

export type ModelMetadata = z.infer<typeof modelMetadataSchema>;

export interface InputTensor {
  name: string;
  datatype: OipDatatype;
  shape: number[];
  /** Little-endian element bytes, exactly elementCount(shape) × the datatype's size. */
  bytes: Uint8Array;
}

export interface InputOptions {
  /** Rows per request (the first dimension where the model leaves it dynamic). */
  batch: number;
  seed: number;
  /** Full shapes for inputs with other dynamic dimensions (e.g. {input_ids: [1, 128]}). */
  shapes?: Record<string, number[]>;
  /** Raw little-endian tensor bytes per input, instead of generated values. */
  files?: Record<string, Uint8Array>;
  /** Integer inputs are drawn from [0, intHigh) (token ids, class ids), clipped to the datatype. Default 100. */
  intHigh?: number;
}

/** Most elements one generated input may have (1 GiB of FP32). */
export const MAX_INPUT_ELEMENTS = 1 << 28;

function resolveShape(name: string, modelShape: number[], options: InputOptions): number[] {
  const given = options.shapes?.[name];
  if (given) {
    if (given.length !== modelShape.length)
      throw new LoadgenInputError(
        "invalid_shape",
        `--shape ${name}`,
        `has ${given.length} dimensions, the model's input has ${modelShape.length} ([${modelShape}])`,
      );
    given.forEach((d, i) => {
      if (!Number.isInteger(d) || d < 1)
        throw new LoadgenInputError(
          "invalid_shape",
          `--shape ${name}`,
          `dimension ${i} must be a positive integer, got ${d}`,
        );
      if (modelShape[i] !== -1 && modelShape[i] !== d)
        throw new LoadgenInputError(
          "invalid_shape",
          `--shape ${name}`,
          `dimension ${i} is ${d}, the model fixes it at ${modelShape[i]}`,
        );
    });
    return [...given];
  }
  return modelShape.map((d, i) => {
    if (d !== -1) return d;
    if (i === 0) return options.batch;
    throw new LoadgenInputError(
      "invalid_shape",
      `--shape ${name}`,
      `dimension ${i} of input ${name} is dynamic ([${modelShape}]): give the full shape, e.g. --shape ${name}=${modelShape.map((x, j) => (x === -1 ? (j === 0 ? options.batch : 16) : x)).join(",")}`,
    );
  });
}

export function generateInputs(inputs: ModelMetadata["inputs"], options: InputOptions): InputTensor[] {
  if (!Number.isInteger(options.batch) || options.batch < 1)
    throw new LoadgenInputError("out_of_range", "--batch", `must be a positive integer, got ${options.batch}`);
  const intHigh = options.intHigh ?? 100;
  if (!Number.isInteger(intHigh) || intHigh < 1)
    throw new LoadgenInputError("out_of_range", "--int-high", `must be a positive integer, got ${intHigh}`);
  for (const name of Object.keys({ ...options.shapes, ...options.files })) {
    if (!inputs.some((i) => i.name === name))
      throw new LoadgenInputError(
        "invalid_option",
        name,
        `the model has no input "${name}" (its inputs: ${inputs.map((i) => i.name).join(", ")})`,
      );
  }
  const random = new Prng(options.seed);
  return inputs.map((input) => {
    if (!isOipDatatype(input.datatype))
      throw new LoadgenInputError(
        "unsupported",
        `input ${input.name}`,
        `datatype ${input.datatype} is not one the load generator writes`,
      );
    const datatype = input.datatype;
    const info = OIP_DATATYPES[datatype];
    const shape = resolveShape(input.name, input.shape, options);
    const count = shape.reduce((a, b) => a * b, 1);
    if (count > MAX_INPUT_ELEMENTS)
      throw new LoadgenInputError(
        "out_of_range",
        `input ${input.name}`,
        `shape [${shape}] has ${count} elements, more than ${MAX_INPUT_ELEMENTS}`,
      );
    const file = options.files?.[input.name];
    if (file) {
      if (file.length !== count * info.bytes) {
        throw new LoadgenInputError(
          "invalid_input_file",
          `--input-file ${input.name}`,
          `has ${file.length} bytes; shape [${shape}] of ${datatype} needs ${count * info.bytes}`,
        );
      }
      return { name: input.name, datatype, shape, bytes: new Uint8Array(file) };
    }
    const bytes = new Uint8Array(count * info.bytes);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < count; i++) {
      // Floats: N(0, 1), like normalised images and embeddings. Integers: uniform in [0, intHigh) within range.
      const value = info.integer
        ? Math.min(info.max, Math.max(info.min, random.int(Math.min(intHigh, info.max - info.min + 1))))
        : random.normal();
      writeElement(view, datatype, i, value);
    }
    return { name: input.name, datatype, shape, bytes };
  });
}
