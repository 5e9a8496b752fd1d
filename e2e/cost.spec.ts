// Cost reports (issue #21) in Chromium at 1366×768 against `npm start` (demo users on: a demo price for the local
// hardware class) and its local agent serving MobileNetV2. An ML engineer sets the model's SLO and runs one short
// load test; a manager then reads /cost: capacity, goodput, cost per 1M inferences and the monthly cost as numbers
// for MobileNetV2, "not measured" for a second deployed model nobody load-tested, no price controls (and the
// procedure refuses them); the printed PDF carries the report header. An admin changes the price (audited) and sees
// the price history.
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { pdfText } from "../src/testing/pdf-text";
import { downloadCsv, expectReadable, VIEWPORT } from "./planning-helpers";
import { sel } from "./selectors";
import { screenshot, signIn } from "./sign-in";
import { openUntilVisible, until } from "./until";
import { newE2ePrisma } from "./e2e-database";

const prisma = newE2ePrisma();

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

const run = randomUUID().slice(0, 6);
const untestedName = `cost-untested-${run}`;
let deploymentId = "";
let modelId = "";
let localAgentId = "";
const cleanup: { agentId?: string; modelId?: string; sha?: string } = {};

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const d = await until(
    () =>
      prisma.deployment.findFirst({
        where: { removedAt: null, state: "serving", modelVersion: { model: { name: "mobilenet-v2" } } },
        include: { agent: true, modelVersion: true },
        orderBy: { createdAt: "asc" },
      }),
    "npm start's demo deployment (MobileNetV2 on the local agent) to serve",
    220_000,
  );
  deploymentId = d.id;
  modelId = d.modelVersion.modelId;
  localAgentId = d.agentId;
  // A second deployed model that nobody load-tested: on a second host of the same class (rows only: no process
  // serves it, and it is removed again after the spec).
  const sha = randomUUID().replace(/-/g, "").padEnd(64, "0");
  await prisma.artifact.create({ data: { sha256: sha, bytes: 1n } });
  const model = await prisma.model.create({ data: { name: untestedName, sloDeadlineMs: 100, sloQuantile: 0.99 } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha, source: "upload", analysis: {} },
  });
  const agent = await prisma.agent.create({
    data: {
      hostName: `cost-e2e-${run}`,
      agentVersion: "e2e",
      protocolVersion: d.agent.protocolVersion,
      bootId: randomUUID(),
      topology: d.agent.topology as object,
      allowedCpus: d.agent.allowedCpus,
      cpuModel: d.agent.cpuModel,
      memoryBytes: d.agent.memoryBytes,
      ortVersion: d.agent.ortVersion,
      lastHeartbeatAt: new Date(),
    },
  });
  const second = await prisma.deployment.create({
    data: {
      agentId: agent.id,
      modelVersionId: version.id,
      cpus: d.agent.allowedCpus,
      state: "serving",
      observedGeneration: 1,
    },
  });
  await prisma.deploymentGeneration.create({
    data: {
      deploymentId: second.id,
      generation: 1,
      modelVersionId: version.id,
      label: "default",
      plan: { instances: [{ count: 1, threads: 1, batch: 1 }], batchTimeoutMs: 0, warmupIterations: 0 },
    },
  });
  Object.assign(cleanup, { agentId: agent.id, modelId: model.id, sha });
});

test.afterAll(async () => {
  if (cleanup.agentId) {
    const ids = (await prisma.deployment.findMany({ where: { agentId: cleanup.agentId }, select: { id: true } })).map(
      (x) => x.id,
    );
    await prisma.alert.deleteMany({ where: { objectId: { in: [cleanup.agentId, ...ids] } } });
    await prisma.agent.delete({ where: { id: cleanup.agentId } });
  }
  if (cleanup.modelId) await prisma.model.delete({ where: { id: cleanup.modelId } });
  if (cleanup.sha) await prisma.artifact.delete({ where: { sha256: cleanup.sha } });
  await prisma.$disconnect();
});

test("an ML engineer sets MobileNetV2's SLO and runs one short load test of it", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, "ml@example.com");
  await page.goto(`/models/${modelId}`);
  const revisionBefore = (await prisma.agent.findUniqueOrThrow({ where: { id: localAgentId } })).revision;
  await page.locator(sel.sloEdit).click();
  await page.locator(sel.sloDeadline).fill("2000");
  await page.locator(sel.sloPercentile).fill("99");
  await page.locator(sel.sloSave).click();
  await expect(page.locator(sel.sloCurrent)).toHaveText("p99 ≤ 2000 ms");
  // The agent learns the SLO from desired state (it counts requests within it): wait until it applied it.
  await until(
    async () => {
      const a = await prisma.agent.findUniqueOrThrow({ where: { id: localAgentId } });
      return a.revision > revisionBefore && a.appliedRevision >= a.revision;
    },
    "the agent to apply the new SLO",
    60_000,
  );

  await page.goto(`/deployments/${deploymentId}`);
  const section = page.locator(sel.deploymentLoadTests);
  const form = section.locator(sel.loadTestForm);
  await openUntilVisible(section.locator(sel.loadTestNew), form);
  await form.locator(sel.loadTestRate).fill("2");
  await form.locator(sel.loadTestDuration).fill("4");
  await form.locator(sel.loadTestConfirm).check();
  await form.locator(sel.loadTestStart).click();
  await page.waitForURL(/\/load-tests\/[^/]+$/);
  await expect(page.locator(sel.loadTestStatus)).toHaveText("done", { timeout: 180_000 });
  // Its requests reach the per-minute rollups through the heartbeats, counted within the SLO.
  await until(
    async () => {
      const sum = await prisma.metricsRollup.aggregate({ where: { deploymentId }, _sum: { requestsWithinSlo: true } });
      return (sum._sum.requestsWithinSlo ?? 0) > 0;
    },
    "heartbeats with requests within the SLO",
    60_000,
  );
});

test("a manager reads /cost: numbers for the tested model, 'not measured' for the other, no price controls, a PDF with the header", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, "manager@example.com");
  await page.locator(sel.mainNav).getByRole("link", { name: "Cost" }).click();
  await expect(page).toHaveURL(/\/cost$/);
  const header = page.locator(sel.costReportHeader);
  // The report is dated the day it was generated: today, read on either side of it (a run may cross midnight UTC).
  const dayBefore = new Date().toISOString().slice(0, 10);
  await expect(page.locator(sel.costReportDate)).toContainText(/\d{4}-\d{2}-\d{2}/);
  const today = /\d{4}-\d{2}-\d{2}/.exec((await page.locator(sel.costReportDate).textContent()) ?? "")![0];
  expect([dayBefore, new Date().toISOString().slice(0, 10)]).toContain(today);
  await expect(page.locator(sel.costReportPeriod)).toContainText("last 7 days");

  const tested = page.locator(sel.costRow("mobilenet-v2"));
  await expect(tested.locator(sel.costCapacity)).toHaveText(/^\d[\d,.]* req\/s$/);
  await expect(tested.locator(sel.costGoodput)).toHaveText(/^\d[\d,.]* \/h$/);
  await expect(tested.locator(sel.costPerMillionCapacity)).toHaveText(/^\$\d[\d,.]*$/);
  await expect(tested.locator(sel.costPerMillionActual)).toHaveText(/^\$\d[\d,.]*$/);
  await expect(tested.locator(sel.costMonthly)).toHaveText(/^\$\d[\d,.]*$/);
  await expect(tested.locator(sel.costReplicas)).toHaveText(/^\d+$/);
  // The peak is prefilled with the measured 7-day maximum.
  expect(Number(await tested.locator(sel.costPeakInput).inputValue())).toBeGreaterThan(0);
  await expect(tested).toContainText("demo price");

  const untested = page.locator(sel.costRow(untestedName));
  await expect(untested.locator(sel.costNotMeasured)).toHaveText("not measured");
  await expect(untested.locator(sel.costRunLoadTest)).toHaveAttribute("href", /\/deployments\//);
  await expect(untested.locator(sel.costMonthly)).toHaveText("—");
  await expect(page.locator(sel.costTrendChart)).toBeVisible();

  // Read-only for managers: no price controls, and the procedure itself refuses.
  await expect(page.locator(sel.costPrices).locator(sel.priceDemo)).toBeVisible();
  await expect(page.locator(sel.priceEdit)).toHaveCount(0);
  await expect(page.locator(sel.costPricesReadonly)).toBeVisible();
  await expect(page.locator(sel.priceHistory)).toHaveCount(0);
  const refused = await page.request.post("/api/trpc/cost.setPrice", {
    data: { json: { hardwareClass: "anything", hourlyUsd: 1 } },
  });
  expect(refused.status()).toBe(403);

  // The CSV: one row per deployed model at full precision, the same capacity as the page.
  const csv = await downloadCsv(page, sel.costToolbar);
  expect(csv.name).toMatch(/^packrat-cost-7d-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = csv.text.trim().split("\r\n");
  expect(lines[0]).toContain("cost per 1M inferences at capacity $");
  const mobilenet = lines.find((l) => l.startsWith("mobilenet-v2,"))!.split(",");
  const capacityColumn = lines[0]!.split(",").indexOf("capacity req/s (measured)");
  const shown = (await tested.locator(sel.costCapacity).innerText()).replace(" req/s", "");
  expect(Number(Number(mobilenet[capacityColumn]).toPrecision(3))).toBe(Number(shown));
  expect(lines.some((l) => l.startsWith(`${untestedName},`))).toBe(true);

  await expectReadable(page);
  await page.mouse.move(0, 0);
  await screenshot(page, "cost-screen");

  // The shareable URL carries the period.
  await page.locator(sel.costPeriod).selectOption("30d");
  await page.locator(sel.costApply).click();
  await expect(page).toHaveURL(/period=30d/);
  await expect(page.locator(sel.costReportPeriod)).toContainText("last 30 days");
  await page.goto("/cost");
  // The report regenerated on this visit: its date is the one the PDF must carry (midnight may have passed).
  const printedDay = /\d{4}-\d{2}-\d{2}/.exec((await page.locator(sel.costReportDate).textContent()) ?? "")![0];

  // Printed: the print stylesheet hides navigation and controls; the PDF's text has the header and the figures.
  await page.emulateMedia({ media: "print" });
  await expect(page.locator("aside.sidebar")).toBeHidden();
  await expect(header).toBeVisible();
  await screenshot(page, "cost-print");
  // Chromium positions glyph runs one by one (kerning), so the extracted text has stray breaks: compare without
  // whitespace.
  const squash = (t: string) => t.replace(/\s+/g, "");
  const text = squash(
    pdfText(await page.pdf({ format: "A4", printBackground: true, path: "e2e/.artifacts/screens/cost-report.pdf" })),
  );
  for (const expected of [
    "Packrat cost report",
    `Date: ${printedDay}`,
    "Period: last 7 days",
    "mobilenet-v2",
    untestedName,
    "per 1M inferences",
    "not measured",
    "req/s",
  ]) {
    expect(text, `the PDF's text has "${expected}"`).toContain(squash(expected));
  }
});

test("an admin changes the demo price: the report uses it, the label goes, the change is audited", async ({ page }) => {
  await signIn(page, "admin@example.com");
  await page.goto("/cost");
  const row = page
    .locator(sel.costPrices)
    .locator("tr", { has: page.locator(sel.priceDemo) })
    .first();
  await row.locator(sel.priceEdit).click();
  await row.locator(sel.priceInput).fill("0.25");
  await row.locator(sel.priceSave).click();
  await expect(page.locator(sel.costRow("mobilenet-v2"))).toContainText("$0.25/h");
  await expect(page.locator(sel.priceDemo)).toHaveCount(0);
  // The admin's price does not inherit the seeded price's "not a real price" note.
  await expect(page.locator(sel.costPrices)).not.toContainText("not a real price");
  // The price history, newest first: the admin's price, then the demo price npm start seeded.
  const history = page.locator(sel.priceHistory).locator(sel.priceHistoryRow);
  await expect(history.first()).toContainText("$0.25");
  await expect(history.nth(1)).toContainText("npm start");
  await page.locator(sel.priceHistory).scrollIntoViewIfNeeded();
  await screenshot(page, "cost-price-history");
  expect(
    await prisma.auditEvent.count({ where: { action: "hardware_price.set", actorLabel: "admin@example.com" } }),
  ).toBe(1);
});
