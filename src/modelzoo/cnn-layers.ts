import { attr, type GraphBuilder } from "./graph-builder";

/** Convolutional building blocks in torchvision's layout: Conv weight [C_out, C_in/groups, k, k], BN unfused. */

export interface ConvSpec {
  cin: number;
  cout: number;
  kernel: number;
  stride?: number;
  /** Symmetric padding; defaults to kernel/2 rounded down ("same" for odd kernels at stride 1). */
  pad?: number;
  groups?: number;
  bias?: boolean;
}

export function conv(b: GraphBuilder, x: string, name: string, s: ConvSpec): string {
  const groups = s.groups ?? 1;
  const pad = s.pad ?? Math.floor(s.kernel / 2);
  const stride = s.stride ?? 1;
  const inputs = [x, b.normal(`${name}.weight`, [s.cout, s.cin / groups, s.kernel, s.kernel])];
  if (s.bias) inputs.push(b.normal(`${name}.bias`, [s.cout]));
  return b.op(
    "Conv",
    inputs,
    {
      kernel_shape: attr.ints([s.kernel, s.kernel]),
      strides: attr.ints([stride, stride]),
      pads: attr.ints([pad, pad, pad, pad]),
      dilations: attr.ints([1, 1]),
      group: attr.int(groups),
    },
    name,
  );
}

/**
 * BatchNormalization with γ = 1 + noise, β = noise, running mean = noise, running variance = 1 + |noise|.
 * β and the mean keep activations around the noise scale, so deep stacks never decay into denormals
 * (which would make a synthetic model slower than the real one).
 */
export function batchNorm(b: GraphBuilder, x: string, name: string, channels: number): string {
  return b.op(
    "BatchNormalization",
    [
      x,
      b.normal(`${name}.weight`, [channels], undefined, 1),
      b.normal(`${name}.bias`, [channels]),
      b.normal(`${name}.running_mean`, [channels]),
      b.variance(`${name}.running_var`, channels),
    ],
    { epsilon: attr.float(1e-5), momentum: attr.float(0.9) },
    name,
  );
}

export function relu(b: GraphBuilder, x: string): string {
  return b.op("Relu", [x]);
}

/** ReLU6 as ONNX writes it: Clip with min 0 and max 6 as (shared) Constant inputs, since opset 11. */
export function relu6(b: GraphBuilder, x: string): string {
  return b.op("Clip", [x, b.float([0], []), b.float([6], [])]);
}

export type Activation = "relu" | "relu6" | "none";

export function convBn(
  b: GraphBuilder,
  x: string,
  convName: string,
  bnName: string,
  s: ConvSpec,
  act: Activation,
): string {
  const y = batchNorm(b, conv(b, x, convName, s), bnName, s.cout);
  if (act === "relu") return relu(b, y);
  if (act === "relu6") return relu6(b, y);
  return y;
}

/** Global average pooling to [N, C] for a classifier. */
export function poolFlatten(b: GraphBuilder, x: string): string {
  return b.op("Flatten", [b.op("GlobalAveragePool", [x])], { axis: attr.int(1) });
}

/** A fully connected classifier as torchvision stores it (weight [out, in]): Gemm with transB. */
export function linear(b: GraphBuilder, x: string, name: string, din: number, dout: number): string {
  return b.op(
    "Gemm",
    [x, b.normal(`${name}.weight`, [dout, din]), b.normal(`${name}.bias`, [dout])],
    {
      alpha: attr.float(1),
      beta: attr.float(1),
      transA: attr.int(0),
      transB: attr.int(1),
    },
    name,
  );
}
