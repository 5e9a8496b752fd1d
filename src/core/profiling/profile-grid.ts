// The profile grid's batch axis (Packrat §3.2): powers of two, so (n + 1) · T cells instead of 2ⁿ · T. One
// definition for the dashboard's form, the control plane's default and the bound its API accepts.

/** The largest batch profiled when nobody says otherwise. */
export const DEFAULT_PROFILE_MAX_BATCH = 64;
/** The largest batch a profile may ask for. */
export const PROFILE_BATCH_LIMIT = 4096;

/** 1, 2, 4, … the powers of two not above `max`. */
export function profileBatchesUpTo(max: number): number[] {
  const out: number[] = [];
  for (let b = 1; b <= max; b *= 2) out.push(b);
  return out;
}
