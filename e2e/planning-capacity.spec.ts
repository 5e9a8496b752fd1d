// The capacity planner (issue #18 item 2) in Chromium at 1366×768, signed in as an ML engineer.
import { expect, test } from "@playwright/test";
import { sel } from "./selectors";
import { demoDeployment, sendTrafficAndWait } from "./live-traffic";
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

test("Napkin Math 13.3: ρ_max 67.5%, 7,402.9 req/s, 27 GPUs, 36 with 30% headroom, N+1 at 50.4%", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/capacity?rate=100");
  await page.locator(sel.presets).getByRole("button", { name: "Napkin Math 13.3", exact: true }).click();
  await expect(page.locator(sel.rhoMax)).toContainText("67.5%");
  await expect(page.locator(sel.requiredRate)).toContainText("7,402.9 req/s");
  await expect(page.locator(sel.requiredRate)).toContainText("283.43 req/s per replica");
  await expect(page.locator(sel.replicas)).toContainText("27 → 36");
  await expect(page.locator(sel.postFailure)).toContainText("50.4%");
  await expect(page.locator(sel.postFailure)).toContainText("survives");
  await expect(page.locator(sel.capacityChart)).toContainText("ρ_max 67.5%");
  await expect(page.locator(sel.capacityChart)).toContainText("p99 budget 50 ms");
  await expect(page.locator(sel.capacityChart)).toContainText("model, not measurement");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "capacity-napkin");
});

test("N+2, both readings: 29 at the same threshold, 38 keeping the headroom; the batched plan carries its caveat", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/capacity");
  await page.locator(sel.presets).getByRole("button", { name: "Napkin Math 13.3, N+2" }).click();
  await expect(page.locator(sel.replicaTable).locator("tr", { hasText: "N+2 on base" })).toContainText("29");
  await expect(page.locator(sel.replicaTable).locator("tr", { hasText: "N+2 on final" })).toContainText("38");
  await attachScreenshot(page, testInfo, "capacity-n2");
  await page.locator(sel.presets).getByRole("button", { name: "Batched plan (§13.10.2)" }).click();
  await expect(page.locator(sel.replicas)).toContainText("2 → 3");
  await expect(page.locator(sel.replicasChart)).toContainText("this matches throughput, not p99 latency");
});

test("invalid values show their messages; an SLO an idle server misses says why", async ({ page }, testInfo) => {
  await openPlanner(page, "/planning/capacity");
  await setField(page, "rate", "-5");
  await expect(page.locator(fieldError("rate"))).toHaveText("Peak arrival rate must be > 0 req/s");
  await expect(page.locator(sel.capacitySummary)).toHaveCount(0);
  await expect(page.locator(sel.capacityChart).locator(sel.chartSvg)).toBeVisible();
  await setField(page, "rate", "5000");
  // 4.6 × 12 ms = 55.2 ms > 50 ms even with no queue.
  await setField(page, "service", "12");
  await expect(page.locator('[data-testid="plan-infeasible"]')).toContainText("an idle server's p99 (55.200 ms)");
  await setField(page, "k", "1.5");
  await expect(page.locator(fieldError("k"))).toHaveText("Failures to survive (N+k) must be a whole number");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "capacity-invalid");
});

test("changing an input changes the chart, and the URL reproduces the view", async ({ page, context }) => {
  await openPlanner(page, "/planning/capacity");
  const before = await chartSignature(page, sel.capacityChart);
  await setField(page, "servers", "8");
  await expect(page.locator(sel.capacityChart)).toContainText("M/M/8 mean");
  expect(await chartSignature(page, sel.capacityChart)).not.toBe(before);
  await setField(page, "budget", "68");
  await setField(page, "outside", "18");
  await expect(page.locator(sel.replicas)).toContainText("27 → 36");
  await expect(page).toHaveURL(/budget=68&outside=18/);

  const other = await context.newPage();
  await other.setViewportSize(VIEWPORT);
  await other.goto(page.url());
  await expect(other.locator(field("servers"))).toHaveValue("8");
  await expect(other.locator(field("outside"))).toHaveValue("18");
  await expect(other.locator(sel.capacityChart)).toContainText("M/M/8 mean");

  const csv = await downloadCsv(page, sel.capacityChart);
  expect(csv.text.split("\r\n")[0]).toBe(
    "utilization,mm1_mean_ms,mm1_p99_ms,md1_mean_ms,mmc_mean_ms,mmc_p99_ms,servers,service_ms,p99_multiplier",
  );
  const replicas = await downloadCsv(page, sel.replicasChart);
  expect(replicas.text).toContain("+30% headroom,36,");
});

test("the live operating point: after traffic on npm start's MobileNetV2, its ρ, rate and time in the server are drawn on the curves", async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000); // npm start deploys the demo model on first start
  const deployment = await demoDeployment();
  await sendTrafficAndWait(deployment.id, deployment.agent.inferenceUrl!, 60, 4);
  await openPlanner(page, "/planning/capacity");
  await page.locator(sel.liveDeployment).selectOption(deployment.id);
  await expect(page.locator(sel.livePoint)).toContainText("measured", { timeout: 20_000 });
  await expect(page.locator(sel.livePoint)).toContainText("last 15 min");
  await expect(page.locator(sel.liveUtilization)).toContainText(/\d+(\.\d+)?%/);
  await expect(page.locator(sel.liveRate)).toContainText("req/s");
  await expect(page.locator(sel.liveLatency)).toContainText("mean");
  // Its measured S drives the curves, so the point is read against its own model; the markers are on the chart.
  await page.locator(sel.useLiveService).click();
  await expect(page.locator(sel.capacityChart)).toContainText("Live point (measured)");
  await expect(page.locator(sel.capacityChart)).toContainText("live mean");
  await expect(page.locator(sel.capacityChart)).toContainText("live p99");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "capacity-live-point");

  // A link to this view opens it live in another tab, on the same deployment and window.
  await expect(page).toHaveURL(new RegExp(`[?&]live=${deployment.id}&liveWindow=15&`));
  const other = await page.context().newPage();
  await other.setViewportSize(VIEWPORT);
  await other.goto(page.url());
  await expect(other.locator(sel.liveDeployment)).toHaveValue(deployment.id);
  await expect(other.locator(sel.livePoint)).toContainText("last 15 min", { timeout: 20_000 });
  await other.close();
});
