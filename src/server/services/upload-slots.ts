// How many uploads (and imports by URL) this replica handles at once. Each one runs a validation child and an
// analysis child that may each reach MODEL_VALIDATE_MAX_RSS, so a burst of uploads could exhaust the host's memory
// however well each child is watched. Past the cap a caller is refused at once (RATE_LIMITED: 429, Retry-After) and
// nothing of its body is read; it tries again later. Counted per process, so on globalThis (Next may load a module
// twice).
import { DomainError } from "@/server/errors/domain-errors";

/** How long a refused caller is asked to wait, in seconds (the Retry-After header). */
export const UPLOAD_RETRY_AFTER_S = 10;

const slots = globalThis as unknown as { packratUploadsInFlight?: number };

export function uploadsInFlight(): number {
  return slots.packratUploadsInFlight ?? 0;
}

/** Runs `work` in one of `max` upload slots, or throws RATE_LIMITED when all are taken. */
export async function withUploadSlot<T>(max: number, work: () => Promise<T>): Promise<T> {
  if (uploadsInFlight() >= max) {
    throw new DomainError(
      "RATE_LIMITED",
      `${max} model upload${max === 1 ? " is" : "s are"} being processed already (MODEL_UPLOAD_MAX_CONCURRENT); try again in a few seconds`,
      {
        retryAfterSeconds: UPLOAD_RETRY_AFTER_S,
      },
    );
  }
  slots.packratUploadsInFlight = uploadsInFlight() + 1;
  try {
    return await work();
  } finally {
    slots.packratUploadsInFlight = uploadsInFlight() - 1;
  }
}
