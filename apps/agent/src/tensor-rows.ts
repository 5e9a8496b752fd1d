// Concatenation and slicing of dense row-major tensors along one axis (each tensor's own batch axis): how
// requests become a batch and back. Along axis 0 a tensor's rows are one contiguous run; along axis k > 0 each of
// the prod(shape[0..k)) outer blocks holds a run of rows, so parts are interleaved block by block.
import { DATATYPES, elementCount, type WireTensor } from "./tensor-types";

/** Bytes of one row along `axis`: one index of that axis within one outer block. */
function innerBytes(tensor: Pick<WireTensor, "datatype" | "shape">, axis: number): number {
  return elementCount(tensor.shape.slice(axis + 1)) * DATATYPES[tensor.datatype].bytes;
}

export function rowBytes(tensor: Pick<WireTensor, "datatype" | "shape">, axis = 0): number {
  return elementCount(tensor.shape.slice(0, axis)) * innerBytes(tensor, axis);
}

/** Concatenates tensors that agree on everything but dimension `axis`. */
export function concatRows(name: string, parts: readonly WireTensor[], axis = 0): WireTensor {
  const first = parts[0]!;
  if (parts.length === 1) return { ...first, name };
  const rows = parts.reduce((sum, p) => sum + p.shape[axis]!, 0);
  const shape = first.shape.map((d, i) => (i === axis ? rows : d));
  const out = new Uint8Array(elementCount(shape) * DATATYPES[first.datatype].bytes);
  const outer = elementCount(first.shape.slice(0, axis));
  const inner = innerBytes(first, axis);
  let offset = 0;
  for (let block = 0; block < outer; block++) {
    for (const part of parts) {
      const run = part.shape[axis]! * inner;
      out.set(new Uint8Array(part.buffer, block * run, run), offset);
      offset += run;
    }
  }
  return { name, datatype: first.datatype, shape, buffer: out.buffer };
}

/**
 * Rows [start, start + count) along `axis`: the tensor itself when that is all of it (no copy: a batch of one
 * request, or a request that fills its instance), otherwise a new tensor with its own buffer.
 */
export function sliceRows(tensor: WireTensor, start: number, count: number, axis = 0): WireTensor {
  if (start === 0 && count === tensor.shape[axis]) return tensor;
  const shape = tensor.shape.map((d, i) => (i === axis ? count : d));
  const inner = innerBytes(tensor, axis);
  const outer = elementCount(tensor.shape.slice(0, axis));
  if (outer === 1)
    return {
      name: tensor.name,
      datatype: tensor.datatype,
      shape,
      buffer: tensor.buffer.slice(start * inner, (start + count) * inner),
    };
  const out = new Uint8Array(outer * count * inner);
  const source = new Uint8Array(tensor.buffer);
  const blockBytes = tensor.shape[axis]! * inner;
  for (let block = 0; block < outer; block++) {
    const from = block * blockBytes + start * inner;
    out.set(source.subarray(from, from + count * inner), block * count * inner);
  }
  return { name: tensor.name, datatype: tensor.datatype, shape, buffer: out.buffer };
}
