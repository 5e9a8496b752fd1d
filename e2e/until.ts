// Polls `probe` until it returns something truthy (a thrown probe counts as "not yet"); for waits on the database
// or the API that Playwright's own expect-polling cannot express. The timeout only keeps a hang from lasting.
export async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs: number, intervalMs = 300): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
