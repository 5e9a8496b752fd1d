import { convBn, linear, poolFlatten } from "./cnn-layers";
import { GraphBuilder, type BuildOptions } from "./graph-builder";

/**
 * MobileNetV2 1.0 as torchvision builds it (Sandler et al. 2018): inverted residuals with ReLU6 (Clip 0..6), a
 * linear bottleneck, residual adds where stride is 1 and widths match, a 1280-wide head and a 1000-way
 * classifier (its dropout is the identity at inference). Input [batch, 3, 224, 224].
 */
const SETTINGS: ReadonlyArray<{ expand: number; channels: number; repeats: number; stride: number }> = [
  { expand: 1, channels: 16, repeats: 1, stride: 1 },
  { expand: 6, channels: 24, repeats: 2, stride: 2 },
  { expand: 6, channels: 32, repeats: 3, stride: 2 },
  { expand: 6, channels: 64, repeats: 4, stride: 2 },
  { expand: 6, channels: 96, repeats: 3, stride: 1 },
  { expand: 6, channels: 160, repeats: 3, stride: 2 },
  { expand: 6, channels: 320, repeats: 1, stride: 1 },
];

function invertedResidual(
  b: GraphBuilder,
  x: string,
  p: string,
  cin: number,
  cout: number,
  stride: number,
  expand: number,
): string {
  const hidden = cin * expand;
  let y = x;
  let layer = 0;
  // torchvision's Sequential indices: [expand conv+bn (if t > 1)], depthwise conv+bn, then the projection conv, bn.
  if (expand !== 1) {
    y = convBn(b, y, `${p}.conv.${layer}.0`, `${p}.conv.${layer}.1`, { cin, cout: hidden, kernel: 1 }, "relu6");
    layer++;
  }
  y = convBn(
    b,
    y,
    `${p}.conv.${layer}.0`,
    `${p}.conv.${layer}.1`,
    { cin: hidden, cout: hidden, kernel: 3, stride, groups: hidden },
    "relu6",
  );
  layer++;
  y = convBn(b, y, `${p}.conv.${layer}`, `${p}.conv.${layer + 1}`, { cin: hidden, cout, kernel: 1 }, "none");
  return stride === 1 && cin === cout ? b.op("Add", [x, y]) : y;
}

export function buildMobilenetV2(options: BuildOptions): Uint8Array {
  const b = new GraphBuilder(options.name ?? "mobilenet-v2", options.seed);
  let x = b.input("input", "float32", ["batch", 3, 224, 224]);
  x = convBn(b, x, "features.0.0", "features.0.1", { cin: 3, cout: 32, kernel: 3, stride: 2 }, "relu6");
  let channels = 32;
  let index = 1;
  for (const s of SETTINGS) {
    for (let i = 0; i < s.repeats; i++) {
      x = invertedResidual(b, x, `features.${index}`, channels, s.channels, i === 0 ? s.stride : 1, s.expand);
      channels = s.channels;
      index++;
    }
  }
  x = convBn(b, x, `features.${index}.0`, `features.${index}.1`, { cin: channels, cout: 1280, kernel: 1 }, "relu6");
  b.output(linear(b, poolFlatten(b, x), "classifier.1", 1280, 1000), "float32", ["batch", 1000], "logits");
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}
