// Polls `probe` until it returns something truthy (a thrown probe counts as "not yet"); for waits on the database
// or the API that Playwright's own expect-polling cannot express. The timeout only keeps a hang from lasting.
import { expect, type Locator } from "@playwright/test";
export async function until<T>(
  probe: () => Promise<T | null | undefined | false>,
  what: string,
  timeoutMs: number,
  intervalMs = 300,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Clicks `opener` until `target` is visible: a click that lands before the page has hydrated does nothing (seen on
 * a loaded host), and a plain click would then wait for the target until the test times out.
 */
export async function openUntilVisible(opener: Locator, target: Locator, timeoutMs = 60_000): Promise<void> {
  await expect(async () => {
    if ((await target.count()) === 0) await opener.click();
    await expect(target).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: timeoutMs });
}
