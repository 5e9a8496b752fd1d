/**
 * Numbers as the planners print them: grouped thousands, a fixed count of significant figures (a planner never shows
 * more precision than its inputs carry), a unit on every value, and a dash instead of NaN or Infinity.
 */
import { roundToSignificant } from "@/core/planning/significant-figures";

/** What a value that has no finite number shows. */
export const NO_VALUE = "—";

const grouped = new Map<number, Intl.NumberFormat>();
function formatter(maxFractionDigits: number): Intl.NumberFormat {
  let f = grouped.get(maxFractionDigits);
  if (!f) {
    f = new Intl.NumberFormat("en-US", { maximumFractionDigits: maxFractionDigits, useGrouping: true });
    grouped.set(maxFractionDigits, f);
  }
  return f;
}

/** At most `fractionDigits` decimals, trailing zeros dropped, thousands grouped: 7402.93 → "7,402.93". */
export function formatFixed(value: number | null | undefined, fractionDigits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NO_VALUE;
  const text = formatter(Math.max(0, Math.min(20, fractionDigits))).format(value);
  return text === "-0" ? "0" : text;
}

/** Rounded to `digits` significant figures, then grouped: 7402.93 at 5 → "7,402.9"; 0.042973 at 4 → "0.04297". */
export function formatSig(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NO_VALUE;
  if (value === 0) return "0";
  const rounded = roundToSignificant(value, digits);
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  // Far from 1, grouped digits stop being readable (and Intl stops at 20 decimals): scientific notation.
  if (magnitude < -6 || magnitude > 15) return rounded.toPrecision(digits).replace(/\.?0+e/, "e");
  return formatFixed(rounded, Math.max(0, digits - 1 - magnitude));
}

export function withUnit(text: string, unit: string): string {
  return text === NO_VALUE || unit === "" ? text : `${text} ${unit}`;
}

export const formatMs = (ms: number | null | undefined, digits = 4) => withUnit(formatSig(ms, digits), "ms");
export const formatRate = (perS: number | null | undefined, unit = "req/s", digits = 5) =>
  withUnit(formatSig(perS, digits), unit);
export const formatCount = (n: number | null | undefined) => formatFixed(n, 0);

/** A fraction as a percentage: 0.50403 → "50.4%". */
export function formatPercent(fraction: number | null | undefined, fractionDigits = 1): string {
  if (fraction === null || fraction === undefined || !Number.isFinite(fraction)) return NO_VALUE;
  return `${formatFixed(fraction * 100, fractionDigits)}%`;
}

export const BYTES_PER_GB = 1e9;
export const BYTES_PER_GIB = 2 ** 30;

/** Bytes exactly, grouped: "131,072 B". */
export const formatBytesExact = (bytes: number | null | undefined) => withUnit(formatFixed(bytes, 0), "B");

/** Decimal gigabytes (the chapter counts tensor footprints in GB = 1e9 B): "1.07 GB". */
export const formatGB = (bytes: number | null | undefined, digits = 3) =>
  withUnit(formatSig(bytes === null || bytes === undefined ? bytes : bytes / BYTES_PER_GB, digits), "GB");

export const formatGiB = (bytes: number | null | undefined, digits = 3) =>
  withUnit(formatSig(bytes === null || bytes === undefined ? bytes : bytes / BYTES_PER_GIB, digits), "GiB");

/** A size in the unit that reads best: B below 10 kB, then kB / MB / GB (decimal). */
export function formatBytes(bytes: number | null | undefined, digits = 3): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return NO_VALUE;
  const abs = Math.abs(bytes);
  if (abs < 1e4) return formatBytesExact(bytes);
  if (abs < 1e6) return withUnit(formatSig(bytes / 1e3, digits), "kB");
  if (abs < 1e9) return withUnit(formatSig(bytes / 1e6, digits), "MB");
  return formatGB(bytes, digits);
}

/** "×" multiples: 1.5779 → "1.578×". */
export function formatTimes(x: number | null | undefined, digits = 4): string {
  const text = formatSig(x, digits);
  return text === NO_VALUE ? text : `${text}×`;
}
