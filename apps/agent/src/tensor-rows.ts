// Row-wise (dimension 0) concatenation and slicing of dense tensors: how requests become a batch and back.
import { DATATYPES, elementCount, type WireTensor } from "./tensor-types";

export function rowBytes(tensor: Pick<WireTensor, "datatype" | "shape">): number {
  return elementCount(tensor.shape.slice(1)) * DATATYPES[tensor.datatype].bytes;
}

/** Concatenates tensors that agree on everything but dimension 0. */
export function concatRows(name: string, parts: readonly WireTensor[]): WireTensor {
  const first = parts[0]!;
  if (parts.length === 1) return { ...first, name };
  const rows = parts.reduce((sum, p) => sum + p.shape[0]!, 0);
  const out = new Uint8Array(rows * rowBytes(first));
  let offset = 0;
  for (const part of parts) {
    out.set(new Uint8Array(part.buffer), offset);
    offset += part.buffer.byteLength;
  }
  return { name, datatype: first.datatype, shape: [rows, ...first.shape.slice(1)], buffer: out.buffer };
}

/** Rows [start, start + count) as a new tensor with its own buffer (transferable). */
export function sliceRows(tensor: WireTensor, start: number, count: number): WireTensor {
  const bytes = rowBytes(tensor);
  return {
    name: tensor.name,
    datatype: tensor.datatype,
    shape: [count, ...tensor.shape.slice(1)],
    buffer: tensor.buffer.slice(start * bytes, (start + count) * bytes),
  };
}
