// The latency budget planner (issue #18 item 1) in Chromium at 1366×768, signed in as an ML engineer.
import { expect, test } from "@playwright/test";
import { sel } from "./selectors";
import { signIn } from "./sign-in";
import { LatencyHistogram } from "@packrat/core/stats/histogram";
import { rollupPartColumn } from "@packrat/contracts/deployment-columns";
import { demoDeployment, e2ePrisma, sendTrafficAndWait } from "./live-traffic";
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

const stage = (kind: string) => `[data-testid="stage-${kind}"]`;

test("the ResNet-50 preset (Table 3): 8.6 ms, preprocessing 52.3%, the forward pass 40.7%; Amdahl 5.45 ms, 1.578×", async ({
  page,
}, testInfo) => {
  await openPlanner(page, "/planning/latency-budget?deadline=10");
  await page.locator(sel.presets).getByRole("button", { name: "ResNet-50 (Table 3)" }).click();
  await expect(page.locator(sel.presetSource)).toContainText("Example 13.2 / Table 3");
  await expect(page.locator(sel.budgetSummary)).toContainText("p50 path8.6 ms");
  await expect(page.locator(stage("preprocess"))).toContainText("52.3%");
  await expect(page.locator(stage("inference"))).toContainText("40.7%");
  await expect(page.locator(stage("transfer"))).toContainText("5.8%");
  await expect(page.locator(stage("network"))).toContainText("entered");
  // The queue is modeled: M/M/1 at 140 req/s, S = 3.5 ms → ρ = 0.49; p99 wait ln(49) / (1/3.5 − 0.14) = 26.71 ms.
  await expect(page.locator(stage("queue"))).toContainText("model");
  await expect(page.locator(stage("queue"))).toContainText("26.71");
  await expect(page.locator(sel.p99Total)).toContainText("35.31 ms");
  await expect(page.locator(sel.p99Total)).toContainText("14.69 ms left");
  // Checkpoint 13.1: 50 − (4.5 + 0.5 + 0.1) = 44.9 ms for queue + inference.
  await expect(page.locator(sel.workerAllowance)).toContainText("44.9 ms");
  await expect(page.locator(sel.amdahlAfter)).toContainText("8.6 ms → 5.45 ms");
  await expect(page.locator(sel.amdahlSpeedup)).toContainText("1.578×");
  await expect(page.locator(sel.dividendSpeedup)).toContainText("18.65× vs 10×");
  await expect(page.locator(sel.latencyChart)).toContainText("deadline 50 ms");
  await expect(page.locator(sel.latencyChart)).toContainText("model, not measurement");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "latency-budget-resnet50");
});

test("the DLRM preset (Table 4): 9 ms against a 10 ms p99, 1 ms left", async ({ page }, testInfo) => {
  await openPlanner(page, "/planning/latency-budget");
  await page.locator(sel.presets).getByRole("button", { name: "DLRM (Table 4)" }).click();
  await expect(page.locator(sel.p99Total)).toContainText("9 ms");
  await expect(page.locator(sel.p99Total)).toContainText("1 ms left");
  await expect(page.locator(stage("queue"))).toContainText("entered");
  await attachScreenshot(page, testInfo, "latency-budget-dlrm");
});

test("invalid values show their messages and never a NaN", async ({ page }, testInfo) => {
  await openPlanner(page, "/planning/latency-budget");
  await setField(page, "deadline", "fifty");
  await expect(page.locator(fieldError("deadline"))).toHaveText("p99 deadline must be a number (in ms)");
  await expect(page.locator(field("deadline"))).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(sel.latencyChart)).toContainText("Fix the inputs marked in red");
  await setField(page, "deadline", "50");
  await setField(page, "inferenceP99", "2");
  await expect(page.locator(sel.stageErrors)).toContainText("Inference p99 must be ≥ its p50 (3.5 ms)");
  await setField(page, "inferenceP99", "3.5");
  // 300 req/s × 3.5 ms = 1.05: no steady state.
  await setField(page, "rate", "300");
  await expect(page.locator(fieldError("rate"))).toContainText("utilization ρ = 1.05");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "latency-budget-invalid");
});

test("changing an input changes the chart, and the URL reproduces the view", async ({ page, context }) => {
  await openPlanner(page, "/planning/latency-budget");
  const before = await chartSignature(page, sel.latencyChart);
  await setField(page, "networkP50", "2");
  await setField(page, "networkP99", "8");
  await expect(page.locator(sel.p99Total)).toContainText("43.31 ms");
  expect(await chartSignature(page, sel.latencyChart)).not.toBe(before);
  await setField(page, "speedStage", "preprocess");
  await setField(page, "speedup", "2");
  await expect(page.locator(sel.amdahl)).toContainText("applies when the queued stage (inference) gets faster");
  await expect(page).toHaveURL(/networkP99=8/);

  const other = await context.newPage();
  await other.setViewportSize(VIEWPORT);
  await other.goto(page.url());
  await expect(other.locator(field("networkP99"))).toHaveValue("8");
  await expect(other.locator(field("speedStage"))).toHaveValue("preprocess");
  await expect(other.locator(sel.p99Total)).toContainText("43.31 ms");

  const csv = await downloadCsv(page, sel.latencyChart);
  expect(csv.name).toBe("latency-budget-by-stage.csv");
  expect(csv.text).toContain("p99,Network,entered,8,");
});

test("the nav's Planning entry opens the planners, and the tabs move between them", async ({ page }) => {
  await signIn(page, PLANNER_USER);
  await page.locator(sel.mainNav).getByRole("link", { name: "Planning" }).click();
  await expect(page).toHaveURL(/\/planning\/latency-budget/);
  await expect(page.getByRole("heading", { name: "Latency budget", exact: true })).toBeVisible();
  for (const [tab, heading] of [
    ["Capacity", "Capacity"],
    ["Batching", "Batching"],
    ["KV cache", "KV cache"],
  ]) {
    await page.locator(sel.planningTabs).getByRole("link", { name: tab }).click();
    await expect(page.getByRole("heading", { name: heading, exact: true })).toBeVisible();
    await expect(page.locator(sel.planningTabs).getByRole("link", { name: tab })).toHaveAttribute(
      "aria-current",
      "page",
    );
  }
});

test("measured stages: after traffic on npm start's MobileNetV2, choosing its deployment fills deserialize through serialize from its heartbeats", async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000); // npm start deploys the demo model on first start
  const deployment = await demoDeployment();
  await sendTrafficAndWait(deployment.id, deployment.agent.inferenceUrl!, 60, 4);
  await openPlanner(page, "/planning/latency-budget");
  await expect(page.locator(stage("inference"))).toContainText("entered");
  await page.locator(sel.liveDeployment).selectOption(deployment.id);
  await expect(page.locator(sel.measuredWindow)).toContainText("Measured:", { timeout: 20_000 });
  await expect(page.locator(sel.measuredWindow)).toContainText("last 15 min");
  // The stages the agent times are measured, with their window and sample count; the others stay entered.
  for (const kind of ["deserialize", "queue", "batchFormation", "inference", "serialize"]) {
    await expect(page.locator(stage(kind))).toContainText("measured");
    await expect(page.locator(stage(kind))).toContainText("last 15 min, n = ");
  }
  for (const kind of ["network", "preprocess", "transfer", "postprocess"])
    await expect(page.locator(stage(kind))).toContainText("entered");
  // The inference time drawn is the p50 of the compute histograms the metrics messages stored (one part each) in the
  // last 15 minutes. The page's window was cut at its last refetch (every 5 s) by the server's clock: if a minute
  // turned since, the next refetch lines the two windows up again, so this is retried for a little while.
  await expect(async () => {
    const since = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 14 * 60_000);
    const parts = await e2ePrisma().metricsRollupPart.findMany({
      where: { deploymentId: deployment.id, minute: { gte: since } },
    });
    const compute = LatencyHistogram.merge(
      parts.flatMap((p) => {
        const encoded = rollupPartColumn.read(p.encoded).compute;
        return encoded ? [LatencyHistogram.decode(encoded)] : [];
      }),
    );
    const csv = await downloadCsv(page, sel.latencyChart);
    const inferenceP50 = csv.text.split("\r\n").find((l) => l.startsWith("p50,Inference,"));
    expect(inferenceP50).toMatch(/^p50,Inference,measured,/);
    expect(Number(inferenceP50!.split(",")[3])).toBeCloseTo(compute.percentileMs(50), 6);
  }).toPass({ timeout: 20_000 });
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "latency-budget-measured");

  // The deployment and window ride in the URL: a reload (or a shared link) reopens the same live view.
  await page.locator(sel.liveWindow).selectOption("60");
  await expect(page).toHaveURL(new RegExp(`[?&]live=${deployment.id}&liveWindow=60&`));
  await page.reload();
  await expect(page.locator(sel.liveDeployment)).toHaveValue(deployment.id);
  await expect(page.locator(sel.liveWindow)).toHaveValue("60");
  await expect(page.locator(sel.measuredWindow)).toContainText("last 60 min", { timeout: 20_000 });
  await expect(page.locator(stage("inference"))).toContainText("last 60 min, n = ");
});

test("a manager plans without a deployment's live numbers, and is told who can read them", async ({ page }) => {
  await signIn(page, "manager@example.com");
  await page.goto("/planning/latency-budget");
  await expect(page.locator(sel.liveSourceNote)).toContainText("ML engineers and SREs can read");
  await expect(page.locator(sel.liveDeployment)).toHaveCount(0);
});
