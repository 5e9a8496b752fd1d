// The KV-cache planner (issue #18 item 3) in Chromium at 1366×768, signed in as an ML engineer.
import { expect, test } from "@playwright/test";
import { sel } from "./selectors";
import {
  PLANNER_USER,
  VIEWPORT,
  attachScreenshot,
  chartSignature,
  downloadCsv,
  expectReadable,
  field,
  fieldError,
  openPlanner,
  setField,
} from "./planning-helpers";

test.use({ viewport: VIEWPORT });

test("Llama 3 8B: 131,072 bytes per token, 1.07 GB at 8,192 tokens, 65 sequences (TV-068)", async ({
  page,
}, testInfo) => {
  // Start from another preset, then load Llama 3 8B with one click.
  await openPlanner(page, "/planning/kv-cache?layers=48&kvHeads=25&queryHeads=25&headDim=64&context=1024&weights=3");
  await page.locator(sel.presets).getByRole("button", { name: "Llama 3 8B" }).click();
  await expect(page.locator(sel.presets).getByRole("button", { name: "Llama 3 8B" })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await expect(page.locator(sel.bytesPerToken)).toContainText("131,072 B");
  await expect(page.locator(sel.bytesPerToken)).toContainText("GQA 4× smaller");
  await expect(page.locator(sel.bytesPerSequence)).toContainText("1.07 GB");
  await expect(page.locator(sel.bytesPerSequence)).toContainText("8,192 tokens");
  await expect(page.locator(sel.sequencesFit)).toContainText("65");
  await expect(page.locator(sel.sequencesFit)).toContainText("69.8 GB for KV of 85.9 GB");
  await expect(page.locator(sel.memoryChart)).toContainText("85.9 GB = 80 GiB");
  await expect(page.locator(sel.figure8Chart)).toContainText("model, not measurement");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "kv-cache-llama3-8b");
});

test("Figure 8 on the 70B-class model: batch 32 runs out at 4,825 tokens; too many sequences does not fit, with the shortfall", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/kv-cache");
  await page.locator(sel.presets).getByRole("button", { name: "70B-class GQA" }).click();
  await expect(page.locator(sel.bytesPerToken)).toContainText("327,680 B");
  await expect(page.locator(sel.figure8Crossings)).toContainText("batch 32: 4,825 tokens");
  await expect(page.locator(sel.loadFit)).toContainText("fits");
  const before = await chartSignature(page, sel.memoryChart);

  // 48 sequences × 8,192 tokens × 327,680 B = 128.8 GB of cache against 50.6 GB left: 78.2 GB short.
  await setField(page, "context", "8192");
  await setField(page, "concurrency", "48");
  await expect(page.locator(sel.loadFit)).toContainText("does not fit");
  await expect(page.locator(sel.doesNotFit)).toContainText("Does not fit.");
  await expect(page.locator(sel.shortfall)).toHaveText("short by 78.2 GB");
  await expect(page.locator(sel.memoryChart)).toContainText("Does not fit");
  expect(await chartSignature(page, sel.memoryChart)).not.toBe(before);
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "kv-cache-70b-does-not-fit");
});

test("an invalid value shows its message and blanks only what depends on it", async ({ page }) => {
  await openPlanner(page, "/planning/kv-cache");
  await setField(page, "kvHeads", "8.5");
  await expect(page.locator(fieldError("kvHeads"))).toHaveText("KV heads must be a whole number");
  await expect(page.locator(field("kvHeads"))).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(sel.kvSummary)).toHaveCount(0);
  await expect(page.locator(sel.figure8Chart)).toContainText("Fix the inputs marked in red");
  // The speculative calculator does not use the cache shape: still there.
  await expect(page.locator(sel.specSpeedup)).toContainText("×");
  await setField(page, "alpha", "1.5");
  await expect(page.locator(fieldError("alpha"))).toHaveText("Acceptance α must be ≤ 1");
  await expectReadable(page);
});

test("changing an input changes the charts, and the URL reproduces the view", async ({ page, context }) => {
  await openPlanner(page, "/planning/kv-cache");
  const figure8 = await chartSignature(page, sel.figure8Chart);
  const decode = await chartSignature(page, sel.decodeChart);
  await setField(page, "weights", "4");
  await expect(page.locator(sel.sequencesFit)).toContainText("76");
  expect(await chartSignature(page, sel.figure8Chart)).not.toBe(figure8);
  await setField(page, "memoryUnit", "GB");
  await expect(page.locator(sel.memoryChart)).toContainText("80 GB = 74.5 GiB");
  expect(await chartSignature(page, sel.decodeChart)).not.toBe(decode);
  await expect(page).toHaveURL(/[?&]weights=4(&|$)/);
  await expect(page).toHaveURL(/[?&]memoryUnit=GB(&|$)/);

  const shared = page.url();
  const other = await context.newPage();
  await other.setViewportSize(VIEWPORT);
  await other.goto(shared);
  await expect(other.locator(field("weights"))).toHaveValue("4");
  await expect(other.locator(field("memoryUnit"))).toHaveValue("GB");
  await expect(other.locator(sel.sequencesFit)).toHaveText((await page.locator(sel.sequencesFit).textContent()) ?? "");
});

test("each chart's data downloads as CSV", async ({ page }) => {
  await openPlanner(page, "/planning/kv-cache");
  const fig8 = await downloadCsv(page, sel.figure8Chart);
  expect(fig8.name).toBe("concurrency-vs-context-figure-8.csv");
  expect(fig8.text.split("\r\n")[0]).toBe(
    "context_tokens,kv_gb_batch_1,kv_gb_batch_8,kv_gb_batch_16,kv_gb_batch_32,kv_gb_batch_64,kv_budget_gb",
  );
  const spec = await downloadCsv(page, sel.speculative);
  expect(spec.text.split("\r\n")[0]).toBe("acceptance,speedup_gamma_1,speedup_gamma_2,speedup_gamma_4,speedup_gamma_8");
});

test("an anonymous visitor signs in and lands on the same planner view", async ({ page }) => {
  await page.goto("/planning/kv-cache?context=4096&concurrency=16");
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await page.locator(sel.signInForm).getByLabel("Email").fill(PLANNER_USER);
  await page.locator(sel.signInForm).getByLabel("Password").fill("packrat-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/planning\/kv-cache\?.*context=4096/);
  await expect(page.locator(field("concurrency"))).toHaveValue("16");
  await expect(page.locator(sel.mainNav).getByRole("link", { name: "Planning" })).toHaveAttribute(
    "aria-current",
    "page",
  );
});
