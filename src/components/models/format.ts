// Number formats of the Models pages: sizes in bytes, counts, FLOPs, durations, and an SLO as one phrase.

/** 1 decimal below 100 of a unit, none above: "7.6 kB", "14.2 MB", "102 MB", "1.10 GB" (SI units, like `ls -h --si`). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ${units[unit]}`;
}

/** "1,570", "3.50 M", "124 M", "1.23 G": exact below 10 000, three significant digits above. */
export function formatCount(count: number): string {
  if (!Number.isFinite(count)) return "—";
  if (Math.abs(count) < 10_000) return count.toLocaleString("en-US");
  const units: Array<[number, string]> = [
    [1e12, "T"],
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "k"],
  ];
  for (const [scale, suffix] of units) {
    if (Math.abs(count) >= scale) return `${(count / scale).toPrecision(3)} ${suffix}`;
  }
  return String(count);
}

/** FLOPs per sample: "1.04 MFLOPs", "4.09 GFLOPs". */
export function formatFlops(flops: number): string {
  if (!Number.isFinite(flops) || flops < 0) return "—";
  if (flops < 1000) return `${flops} FLOPs`;
  const units: Array<[number, string]> = [
    [1e12, "TFLOPs"],
    [1e9, "GFLOPs"],
    [1e6, "MFLOPs"],
    [1e3, "kFLOPs"],
  ];
  const [scale, suffix] = units.find(([s]) => flops >= s)!;
  return `${(flops / scale).toPrecision(3)} ${suffix}`;
}

/** A configured limit in the binary units it was set in: 2147483648 → "2 GiB"; else as formatBytes. */
export function formatLimit(bytes: number): string {
  for (const [scale, unit] of [
    [1024 ** 4, "TiB"],
    [1024 ** 3, "GiB"],
    [1024 ** 2, "MiB"],
    [1024, "KiB"],
  ] as const) {
    if (bytes >= scale && bytes % scale === 0) return `${bytes / scale} ${unit}`;
  }
  return formatBytes(bytes);
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  return ms >= 100 ? `${Math.round(ms)} ms` : `${ms.toPrecision(2)} ms`;
}

/** 0.99 → "p99", 0.999 → "p99.9", 0.5 → "p50". */
export function quantileLabel(quantile: number): string {
  const percent = Math.round(quantile * 1e6) / 1e4;
  return `p${percent}`;
}

export interface SloLike {
  deadlineMs: number;
  quantile: number;
  ttftMs: number | null;
  tpotMs: number | null;
}

/** "p99 ≤ 50 ms", with ", TTFT ≤ 200 ms, TPOT ≤ 25 ms" for generative models. */
export function formatSlo(slo: SloLike | null): string {
  if (!slo) return "not set";
  const parts = [`${quantileLabel(slo.quantile)} ≤ ${slo.deadlineMs} ms`];
  if (slo.ttftMs !== null) parts.push(`TTFT ≤ ${slo.ttftMs} ms`);
  if (slo.tpotMs !== null) parts.push(`TPOT ≤ ${slo.tpotMs} ms`);
  return parts.join(", ");
}

/** A tensor shape as written in the analysis table: "[batch, 3, 224, 224]"; "unknown rank" when absent. */
export function formatShape(shape: ReadonlyArray<number | string | null> | null): string {
  if (!shape) return "unknown rank";
  return `[${shape.map((d) => (d === null ? "?" : String(d))).join(", ")}]`;
}
