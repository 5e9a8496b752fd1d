import { expect, test } from "@playwright/test";
import { signIn } from "./sign-in";

// npm start runs one local agent and deploys MobileNetV2 (zoo, synthetic weights) to it on first start.
test("the Agents page shows the local agent online with MobileNetV2 and its core map; the deployment is at generation 1", async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000);
  await signIn(page, "sre@example.com");
  await page.goto("/agents");
  const card = page.getByTestId("agent-card").first();
  // The demo model is built, validated and deployed in the background after start: wait for it.
  await expect(async () => {
    await page.reload();
    await expect(card.getByTestId("agent-online")).toHaveText("online");
    await expect(card.locator('tr[data-model="mobilenet-v2"]')).toContainText("serving", { timeout: 1000 });
  }).toPass({ timeout: 200_000, intervals: [2000] });
  const row = card.locator('tr[data-model="mobilenet-v2"]');
  await expect(row.getByTestId("generation")).toHaveText("1 / 1");
  await expect(card.getByTestId("core-map")).toContainText(/CPU \d+/); // the first allowed CPU need not be 0
  await expect(card.getByTestId("core-map")).toContainText("✓");
  await testInfo.attach("agents", { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });

  await row.getByRole("link", { name: /mobilenet-v2 v1/ }).click();
  await expect(page.getByTestId("desired-generation")).toHaveText("1");
  await expect(page.getByTestId("observed-generation")).toHaveText("1");
  await expect(page.getByTestId("generation-history")).toContainText("default (unprofiled)");
  await testInfo.attach("deployment", { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
});

test("an ML engineer reads the Agents page but has no deploy controls", async ({ page }) => {
  await signIn(page, "ml@example.com");
  await page.goto("/agents");
  await expect(page.getByRole("heading", { name: "Agents" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Deploy" })).toHaveCount(0);
  await expect(page.getByText("Enrollment tokens")).toHaveCount(0);
});
