import { expect, test } from "@playwright/test";
import { sel } from "./selectors";
import { signIn } from "./sign-in";

test("the overview shows a healthy control plane on the embedded database", async ({ page }) => {
  await signIn(page, "ml@example.com");
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.locator(sel.healthStatus)).toHaveText("healthy");
  await expect(page.locator(sel.healthCard)).toContainText(/reachable \([\d.]+ ms\)/);
  await expect(page.locator(sel.healthCard)).toContainText(/current \(\d+ applied\)/);
  await expect(page.locator(sel.mainNav).getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
});

test("health endpoints answer as JSON for probes", async ({ request }) => {
  const live = await request.get("/api/health/live");
  expect(live.status()).toBe(200);
  expect(await live.json()).toMatchObject({ live: true });
  const ready = await request.get("/api/health");
  expect(ready.status()).toBe(200);
  const body = await ready.json();
  expect(body.status).toBe("ok");
  expect(body.checks.database.ok).toBe(true);
  expect(body.checks.migrations.ok).toBe(true);
});

test("tRPC rejects a malformed call with a JSON error, not a crash", async ({ request }) => {
  const response = await request.get("/api/trpc/system.noSuchProcedure");
  expect(response.status()).toBe(404);
  const body = await response.json();
  expect(JSON.stringify(body)).toContain("No procedure found");
});
