// Which deployment's heartbeats feed a planning page, and over which window: shared by the pages (their URL state,
// so a live view can be shared and survives a reload), the picker and the tRPC procedures (the one schema).
import { z } from "zod";

export const LIVE_WINDOW_MINUTES = [5, 15, 60, 360] as const;
export type LiveWindowMinutes = (typeof LIVE_WINDOW_MINUTES)[number];
export const DEFAULT_LIVE_WINDOW_MINUTES: LiveWindowMinutes = 15;

export const liveSourceInputSchema = z.object({
  deploymentId: z.string().min(1).max(100),
  windowMinutes: z
    .number()
    .int()
    .refine(
      (m) => (LIVE_WINDOW_MINUTES as readonly number[]).includes(m),
      `windowMinutes must be one of ${LIVE_WINDOW_MINUTES.join(", ")}`,
    ),
});

/** deploymentId "" is planner mode: no live numbers. */
export interface LiveSource {
  deploymentId: string;
  windowMinutes: number;
}
export const DEFAULT_LIVE_SOURCE: LiveSource = { deploymentId: "", windowMinutes: DEFAULT_LIVE_WINDOW_MINUTES };

/** URL keys, apart from every planner field's key. */
export const LIVE_URL_KEYS = { deployment: "live", window: "liveWindow" } as const;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const deploymentParam = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

/**
 * Forgiving like the planner's own URL state: an unknown window falls back to the default, a malformed deployment id
 * to planner mode; a well-formed id the viewer may not read, or that no longer exists, is the procedure's to refuse.
 */
export function parseLiveSourceParams(params: Record<string, string | string[] | undefined>): LiveSource {
  const deployment = deploymentParam.safeParse(first(params[LIVE_URL_KEYS.deployment]));
  if (!deployment.success) return DEFAULT_LIVE_SOURCE;
  const window = Number(first(params[LIVE_URL_KEYS.window]));
  const windowMinutes = (LIVE_WINDOW_MINUTES as readonly number[]).includes(window)
    ? window
    : DEFAULT_LIVE_WINDOW_MINUTES;
  return { deploymentId: deployment.data, windowMinutes };
}

/** The query string for a live source ("" in planner mode, so planner-only links stay as they were). */
export function serializeLiveSource(source: LiveSource): string {
  if (source.deploymentId === "") return "";
  return new URLSearchParams({
    [LIVE_URL_KEYS.deployment]: source.deploymentId,
    [LIVE_URL_KEYS.window]: String(source.windowMinutes),
  }).toString();
}
