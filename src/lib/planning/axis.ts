/** Axis ends on round numbers, so a chart's ticks land on values people read at a glance. */

const COARSE = [1, 2, 2.5, 5, 10];
const FINE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 10];

function ceilOnSteps(x: number, steps: readonly number[]): number {
  if (!(x > 0) || !Number.isFinite(x)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  // A hair of slack: 100 must stay 100, not become 200 through 99.99999999999999 × 1.
  for (const m of steps) if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10 * p;
}

/** The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above x (1 for a non-positive or non-finite x). */
export const niceCeil = (x: number) => ceilOnSteps(x, COARSE);

/** The same on a finer ladder (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8 × 10ⁿ): less empty space above the data. */
export const axisCeil = (x: number) => ceilOnSteps(x, FINE);

export interface NiceTicks {
  top: number;
  step: number;
  ticks: number[];
}

/**
 * Ticks from 0 to a round top that covers max, about `intervals` steps of 1, 2, 2.5 or 5 × 10ⁿ: 215 → 0, 100, 200,
 * 300; 18,272 → 0, 5,000, …, 20,000.
 */
export function niceTicks(max: number, intervals = 4): NiceTicks {
  if (!(max > 0) || !Number.isFinite(max)) return { top: 1, step: 0.25, ticks: [0, 0.25, 0.5, 0.75, 1] };
  const step = niceCeil(max / intervals);
  const count = Math.ceil(max / step - 1e-9);
  const ticks = Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { top: ticks[ticks.length - 1]!, step, ticks };
}
