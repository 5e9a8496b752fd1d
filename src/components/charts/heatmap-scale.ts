/**
 * Colour scales for the SVG heatmap: a sequential scale (light = small, dark = large; linear or logarithmic, since
 * latency over batch sizes spans orders of magnitude) and a diverging one for ratios (1 = white, below blue, above
 * red, symmetric in log₂ so ×2 and ÷2 are equally strong). Pure: values in, positions and colours out.
 */

export type HeatmapScaleErrorCode = "empty" | "not_finite" | "not_positive";

/** A value a scale cannot place; `parameter` names the input. */
export class HeatmapScaleError extends Error {
  readonly code: HeatmapScaleErrorCode;
  readonly parameter: string;
  constructor(code: HeatmapScaleErrorCode, parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "HeatmapScaleError";
    this.code = code;
    this.parameter = parameter;
  }
}

type Rgb = readonly [number, number, number];

// ColorBrewer YlGnBu (9 classes): sequential, colour-blind safe, prints in greyscale in order.
const SEQUENTIAL: readonly Rgb[] = [
  [255, 255, 217],
  [237, 248, 177],
  [199, 233, 180],
  [127, 205, 187],
  [65, 182, 196],
  [29, 145, 192],
  [34, 94, 168],
  [37, 52, 148],
  [8, 29, 88],
];
// ColorBrewer RdBu reversed (blue below 1, red above), white in the middle.
const DIVERGING: readonly Rgb[] = [
  [33, 102, 172],
  [67, 147, 195],
  [146, 197, 222],
  [209, 229, 240],
  [247, 247, 247],
  [253, 219, 199],
  [244, 165, 130],
  [214, 96, 77],
  [178, 24, 43],
];

function interpolate(palette: readonly Rgb[], position: number): Rgb {
  const p = Math.min(1, Math.max(0, position)) * (palette.length - 1);
  const i = Math.min(palette.length - 2, Math.floor(p));
  const f = p - i;
  const a = palette[i]!;
  const b = palette[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as unknown as Rgb;
}

const hex = (rgb: Rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, "0")).join("")}`;

/** WCAG relative luminance of an sRGB colour, 0 (black) … 1 (white). */
export function relativeLuminance(rgb: Rgb): number {
  const lin = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]!;
}

export interface ColorScale {
  kind: "linear" | "log" | "diverging";
  /** The values at the two ends of the colour bar. */
  domain: readonly [number, number];
  /** Where a value sits on the colour bar, 0 … 1 (clamped). */
  position(value: number): number;
  /** The value at a position of the colour bar (the inverse of `position`). */
  valueAt(position: number): number;
  color(value: number): string;
  /** Black or white, whichever reads better on `color(value)`. */
  textColor(value: number): string;
  /** Colour at a bar position, for drawing the legend's gradient. */
  colorAtPosition(position: number): string;
}

function checkValues(values: readonly number[], parameter: string, positive: boolean): void {
  if (values.length === 0) throw new HeatmapScaleError("empty", parameter, "needs at least one value");
  for (const v of values) {
    if (!Number.isFinite(v)) throw new HeatmapScaleError("not_finite", parameter, `${v} is not a finite number`);
    if (positive && v <= 0)
      throw new HeatmapScaleError("not_positive", parameter, `${v} is not > 0 (a log scale needs positive values)`);
  }
}

function build(
  kind: ColorScale["kind"],
  palette: readonly Rgb[],
  lo: number,
  hi: number,
  toT: (v: number) => number,
  fromT: (t: number) => number,
): ColorScale {
  const t0 = toT(lo);
  const t1 = toT(hi);
  // One distinct value: the middle of the bar, so it is neither "best" nor "worst".
  const position = (value: number) => (t1 === t0 ? 0.5 : Math.min(1, Math.max(0, (toT(value) - t0) / (t1 - t0))));
  const valueAt = (p: number) => (t1 === t0 ? lo : fromT(t0 + Math.min(1, Math.max(0, p)) * (t1 - t0)));
  const rgbOf = (value: number) => interpolate(palette, position(value));
  return {
    kind,
    domain: [lo, hi],
    position,
    valueAt,
    color: (value) => hex(rgbOf(value)),
    textColor: (value) => (relativeLuminance(rgbOf(value)) > 0.35 ? "#1c2330" : "#ffffff"),
    colorAtPosition: (p) => hex(interpolate(palette, p)),
  };
}

/** Light (smallest value) to dark (largest); `log` spaces colours by ratio rather than difference. */
export function sequentialScale(
  values: readonly number[],
  options: { log?: boolean; parameter?: string } = {},
): ColorScale {
  const parameter = options.parameter ?? "values";
  checkValues(values, parameter, options.log === true);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return options.log
    ? build("log", SEQUENTIAL, lo, hi, Math.log, Math.exp)
    : build(
        "linear",
        SEQUENTIAL,
        lo,
        hi,
        (v) => v,
        (t) => t,
      );
}

/**
 * Ratios around 1: white at 1, blue below, red above, symmetric in log₂ (the domain is [1/r, r] for the ratio r
 * farthest from 1, and at least [1/1.1, 1.1], so ±1% noise stays nearly white).
 */
export function divergingRatioScale(ratios: readonly number[], parameter = "ratios"): ColorScale {
  checkValues(ratios, parameter, true);
  const reach = Math.max(Math.log2(1.1), ...ratios.map((r) => Math.abs(Math.log2(r))));
  return build("diverging", DIVERGING, 2 ** -reach, 2 ** reach, Math.log2, (t) => 2 ** t);
}

/** `count` evenly spaced positions of the colour bar and the value at each (for the legend's tick labels). */
export function legendTicks(scale: ColorScale, count = 5): Array<{ position: number; value: number }> {
  if (scale.domain[0] === scale.domain[1]) return [{ position: 0.5, value: scale.domain[0] }];
  const n = Math.max(2, Math.floor(count));
  return Array.from({ length: n }, (_, i) => {
    const position = i / (n - 1);
    return { position, value: scale.valueAt(position) };
  });
}
