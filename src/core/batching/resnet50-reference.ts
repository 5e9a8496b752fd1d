import type { AffineServiceTime } from "./service-time";

/**
 * The chapter's ResNet-50 reference service model on the H100 (digest §0.3), built from its stated ingredients so a
 * reader can see where each digit comes from.
 */

const EAGER_KERNELS = 174;
/** 10 μs Python dispatch + 5 μs driver launch per eager kernel. */
const HOST_US_PER_KERNEL = 15;
/** Per-kernel device floor. */
const DEVICE_FLOOR_US_PER_KERNEL = 5;
const FP16_WEIGHT_BYTES = 51.2e6;
const H100_BANDWIDTH_BYTES_PER_S = 3.35e12;
/** FP16 large-batch throughput (Tables 2 and 15); 1/30,400 s per image is what reproduces Table 8. */
const FP16_LARGE_BATCH_IMAGES_PER_S = 30_400;

/** F = 2.610 + 0.870 + 0.01528 = 3.49528 ms. */
export const RESNET50_FIXED_MS =
  (EAGER_KERNELS * (HOST_US_PER_KERNEL + DEVICE_FLOOR_US_PER_KERNEL)) / 1000 +
  (FP16_WEIGHT_BYTES / H100_BANDWIDTH_BYTES_PER_S) * 1000;

/** s = 1/30,400 s = 0.0328947 ms. */
export const RESNET50_PER_IMAGE_MS = 1000 / FP16_LARGE_BATCH_IMAGES_PER_S;

/** Fixture R ("chapter-reproducing"): use it to assert the chapter's displayed numbers. */
export const RESNET50_REPRODUCING: AffineServiceTime = {
  kind: "affine",
  fixedMs: RESNET50_FIXED_MS,
  perSampleMs: RESNET50_PER_IMAGE_MS,
};

/** Fixture A ("chapter-stated"): T(B) = 3.50 ms + 0.033 ms·B as the text writes it. */
export const RESNET50_STATED: AffineServiceTime = { kind: "affine", fixedMs: 3.5, perSampleMs: 0.033 };
