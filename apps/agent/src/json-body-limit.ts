// The largest JSON infer body a model could need, so a body no request to it could ever need is refused with 413
// before it is read. A request carries at most `maxRows` rows (the queue holds no more), each input a fixed
// number of elements per row (along its own batch axis), and a JSON number of a datatype has a longest spelling; twice that covers
// separators, nesting brackets and pretty-printing. Inputs with an open dimension past the batch, or strings
// (BYTES), have no such bound: the agent's body limit applies.
import type { ModelMetadata } from "./served-model";

/** Longest JSON spelling of one element plus its comma: -1.7976931348623157e+308, -9223372036854775808, false. */
const MAX_CHARS: Record<string, number> = {
  FP64: 25,
  FP32: 25,
  FP16: 25,
  BF16: 25,
  INT64: 21,
  UINT64: 21,
  INT32: 12,
  UINT32: 11,
  INT16: 7,
  UINT16: 6,
  INT8: 5,
  UINT8: 4,
  BOOL: 6,
};
const ENVELOPE_BYTES = 64 * 1024;
const SLACK = 2;

export function jsonBodyLimit(metadata: ModelMetadata, maxRows: number, fallbackBytes: number): number {
  let total = ENVELOPE_BYTES;
  for (const input of metadata.inputs) {
    const perElement = MAX_CHARS[input.datatype];
    if (perElement === undefined) return fallbackBytes;
    // Rows run along the input's own batch axis ([layers, batch, hidden] state: axis 1); an unbatched model's
    // requests run whole, so an open dimension there has no bound.
    const layout = metadata.layout;
    const axis = layout?.kind === "unbatched" ? -1 : (layout?.axes.get(input.name) ?? 0);
    const rest = input.shape.filter((_, i) => i !== axis);
    if (rest.some((d) => d < 0)) return fallbackBytes;
    const perRow = rest.reduce((product, d) => product * d, 1);
    const first = input.shape[axis];
    const rows = first === undefined ? 1 : first < 0 ? maxRows : first;
    total += perRow * rows * perElement * SLACK;
    if (total >= fallbackBytes) return fallbackBytes;
  }
  return Math.min(total, fallbackBytes);
}
