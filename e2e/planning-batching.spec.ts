// The batching planner (issue #20) in Chromium at 1366×768, signed in as an ML engineer.
import { expect, test } from "@playwright/test";
import { sel } from "./selectors";
import {
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

test("Table 10: 500 QPS under a 50 ms SLO sees a p99 batch of 13, and 12 ms / batch 32 passes every screen", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/batching?rate=900&cWindow=20");
  await page.locator(sel.presets).getByRole("button", { name: "Table 10: ResNet-50, 500 QPS, 50 ms SLO" }).click();
  await expect(page.locator(field("rate"))).toHaveValue("500");
  await expect(page.locator(sel.validator)).toContainText("T_w = 12 ms, B_max = 32");
  await expect(page.locator(sel.seenP99)).toContainText("13");
  await expect(page.locator(sel.envelope)).toContainText("15.92 ms");
  await expect(page.locator(sel.validatorVerdict)).toHaveText("passes");
  for (const id of ["stability", "mean-screen", "tail-envelope", "window-fraction", "memory-cap", "zero-window"]) {
    await expect(page.locator(`[data-testid="check-${id}"]`)).toContainText("pass");
  }
  await expect(page.locator('[data-testid="check-tail-envelope"]')).toContainText(
    "T_w + T(13) = 15.923 ms ≤ 50.000 ms",
  );
  await expect(page.locator(sel.kneeNote)).toContainText("Knee B* = (T_w + F)/s ≈ 410.3");
  await expect(page.locator(sel.paretoChart)).toContainText("model, not measurement");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "batching-table10");
});

test("typing a latency limit highlights the best frontier point and shows its configuration", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/batching");
  await expect(page.locator(sel.paretoNote)).toContainText("Type a latency limit");
  await expect(page.locator(sel.paretoChart).locator(sel.referenceDot)).toHaveCount(0);
  await expect(page.locator(sel.paretoNote)).toContainText("7 on the frontier");
  await expect(page.locator(sel.paretoNote)).toContainText("8 unstable at this rate");

  await setField(page, "limit", "6");
  // Full batches: envelope T_w + T(B_max); the fastest under 6 ms is 0 ms / 64 (T(64) = 5.60 ms, 64 / 5.60 ms = 11,428 req/s).
  await expect(page.locator(sel.bestConfig)).toContainText("Best under 6 ms: T_w = 0 ms, B_max = 64");
  await expect(page.locator(sel.paretoChart).locator(sel.referenceDot)).toHaveCount(1);
  await expect(page.locator(sel.paretoChart)).toContainText("best: 0 ms / 64");

  await setField(page, "limit", "1");
  await expect(page.locator(sel.bestConfig)).toContainText("No stable candidate's envelope fits 1 ms");
  await expect(page.locator(sel.paretoChart).locator(sel.referenceDot)).toHaveCount(0);

  await setField(page, "limit", "15");
  await expect(page.locator(sel.bestConfig)).toContainText("B_max = 128");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "batching-limit");
});

test("an invalid window shows a message; the rest of the page stays", async ({ page }) => {
  await openPlanner(page, "/planning/batching");
  await setField(page, "cWindow", "-5");
  await expect(page.locator(fieldError("cWindow"))).toHaveText("Window T_w must be ≥ 0 ms");
  await expect(page.locator(sel.validator)).toContainText("Fix the inputs marked in red");
  await expect(page.locator(sel.paretoChart).locator(sel.chartSvg)).toBeVisible();
  await setField(page, "windows", "0, 2, x");
  await expect(page.locator(fieldError("windows"))).toHaveText('Candidate windows: value 3 ("x") is not a number');
  await expectReadable(page);
});

test("changing an input changes the charts; a 20 ms window fails the window share; the URL reproduces the view", async ({
  page,
  context,
}) => {
  await openPlanner(page, "/planning/batching");
  const knee = await chartSignature(page, sel.kneeChart);
  const pareto = await chartSignature(page, sel.paretoChart);
  await setField(page, "kneeWindow", "2");
  await expect(page.locator(sel.kneeNote)).toContainText("≈ 167.1");
  expect(await chartSignature(page, sel.kneeChart)).not.toBe(knee);
  await setField(page, "frontierBatch", "seen");
  await expect(page.locator(sel.paretoNote)).toContainText("1 on the frontier");
  expect(await chartSignature(page, sel.paretoChart)).not.toBe(pareto);

  await setField(page, "cWindow", "20");
  await expect(page.locator(sel.validatorVerdict)).toHaveText("fails");
  await expect(page.locator('[data-testid="check-window-fraction"]')).toContainText("fail");

  const other = await context.newPage();
  await other.setViewportSize(VIEWPORT);
  await other.goto(page.url());
  await expect(other.locator(field("kneeWindow"))).toHaveValue("2");
  await expect(other.locator(field("frontierBatch"))).toHaveValue("seen");
  await expect(other.locator(sel.validatorVerdict)).toHaveText("fails");
  await expect(other.locator(sel.kneeNote)).toContainText("≈ 167.1");
});

test("fitting Table 8's profiled points shows the fit and its residuals; the frontier downloads as CSV", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/batching");
  await page.locator(sel.presets).getByRole("button", { name: "Fit to Table 8" }).click();
  await expect(page.locator(sel.residuals)).toBeVisible();
  await expect(page.locator(sel.residuals).locator("tbody tr")).toHaveCount(5);
  await expect(page.locator(sel.fitChart)).toContainText("one line: R²");
  await expect(page.locator(sel.fitChart).locator(sel.chartSvg)).toBeVisible();
  await setField(page, "points", "1:3.53, 4:3.63, 8-3.76");
  await expect(page.locator(fieldError("points"))).toContainText('entry 3 ("8-3.76") must be batch:ms');
  await setField(page, "points", "1:3.53, 4:3.63, 8:3.76, 16:4.02, 32:4.55");
  const csv = await downloadCsv(page, sel.paretoChart);
  expect(csv.text.split("\r\n")[0]).toBe(
    "window_ms,max_batch,throughput_per_s,mean_latency_ms,p99_envelope_ms,status,best_under_limit,arrival_rate_per_s",
  );
  expect(csv.text.trim().split("\r\n")).toHaveLength(65);
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "batching-fit");
});
