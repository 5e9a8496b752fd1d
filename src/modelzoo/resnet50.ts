import { convBn, linear, poolFlatten, relu } from "./cnn-layers";
import { attr, GraphBuilder, type BuildOptions } from "./graph-builder";

/**
 * ResNet-50 as torchvision builds it (He et al. 2016, "v1.5": the stride sits on the 3×3 convolution of each
 * bottleneck). Convolutions have no bias; every BatchNormalization stays unfused. Input [batch, 3, 224, 224].
 */
const STAGES: ReadonlyArray<{ blocks: number; width: number; stride: number }> = [
  { blocks: 3, width: 64, stride: 1 },
  { blocks: 4, width: 128, stride: 2 },
  { blocks: 6, width: 256, stride: 2 },
  { blocks: 3, width: 512, stride: 2 },
];
const EXPANSION = 4;

function bottleneck(b: GraphBuilder, x: string, p: string, cin: number, width: number, stride: number): string {
  const cout = width * EXPANSION;
  let y = convBn(b, x, `${p}.conv1`, `${p}.bn1`, { cin, cout: width, kernel: 1 }, "relu");
  y = convBn(b, y, `${p}.conv2`, `${p}.bn2`, { cin: width, cout: width, kernel: 3, stride }, "relu");
  y = convBn(b, y, `${p}.conv3`, `${p}.bn3`, { cin: width, cout, kernel: 1 }, "none");
  const identity =
    stride !== 1 || cin !== cout
      ? convBn(b, x, `${p}.downsample.0`, `${p}.downsample.1`, { cin, cout, kernel: 1, stride }, "none")
      : x;
  return relu(b, b.op("Add", [y, identity]));
}

export function buildResnet50(options: BuildOptions): Uint8Array {
  const b = new GraphBuilder(options.name ?? "resnet50", options.seed);
  let x = b.input("input", "float32", ["batch", 3, 224, 224]);
  x = convBn(b, x, "conv1", "bn1", { cin: 3, cout: 64, kernel: 7, stride: 2, pad: 3 }, "relu");
  x = b.op(
    "MaxPool",
    [x],
    { kernel_shape: attr.ints([3, 3]), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
    "maxpool",
  );
  let channels = 64;
  STAGES.forEach((stage, s) => {
    for (let i = 0; i < stage.blocks; i++) {
      x = bottleneck(b, x, `layer${s + 1}.${i}`, channels, stage.width, i === 0 ? stage.stride : 1);
      channels = stage.width * EXPANSION;
    }
  });
  b.output(linear(b, poolFlatten(b, x), "fc", channels, 1000), "float32", ["batch", 1000], "logits");
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}
