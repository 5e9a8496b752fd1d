// Load tests and the Benchmarks page (issue #19) in Chromium at 1366×768 against `npm start` and its local agent
// serving MobileNetV2: an ML engineer starts a short load test from the deployment page (the serving deployment
// asks for a confirmation first), follows it to its page until the agent's report is in, and reads the figures; a
// manager reads the Benchmarks page but cannot open a load test.
import { expect, test } from "@playwright/test";
import { expectReadable, VIEWPORT } from "./planning-helpers";
import { sel } from "./selectors";
import { screenshot, signIn } from "./sign-in";
import { openUntilVisible, until } from "./until";
import { newE2ePrisma } from "./e2e-database";

const prisma = newE2ePrisma();

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

let deploymentId = "";
let loadTestId = "";

test.beforeAll(async () => {
  test.setTimeout(240_000);
  // npm start registers MobileNetV2 and deploys it on the local agent in the background: wait until it serves.
  const d = await until(
    () =>
      prisma.deployment.findFirst({
        where: {
          removedAt: null,
          state: "serving",
          modelVersion: { model: { name: "mobilenet-v2" } },
          agent: { hostName: { not: "" } },
        },
        orderBy: { createdAt: "asc" },
      }),
    "npm start's demo deployment (MobileNetV2 on the local agent) to serve",
    220_000,
  );
  deploymentId = d.id;
});

test.afterAll(async () => {
  await prisma.$disconnect();
});

test("an ML engineer load-tests the serving deployment: confirmation first, then the agent's report on the load-test page", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signIn(page, "ml@example.com");
  await page.goto(`/deployments/${deploymentId}`);
  const section = page.locator(sel.deploymentLoadTests);
  const form = section.locator(sel.loadTestForm);
  await openUntilVisible(section.locator(sel.loadTestNew), form);
  await form.locator(sel.loadTestRate).fill("2");
  await form.locator(sel.loadTestDuration).fill("4");
  await expect(form.locator(sel.loadTestSummary)).toHaveText(
    "Poisson, 2 requests/s for 4 s · binary · 1 row per request",
  );
  // A bad value names itself and blocks the start.
  await form.locator(sel.loadTestRate).fill("fast");
  await expect(form.locator(sel.loadTestFormError)).toContainText('Rate: "fast" is not a number');
  await expect(form.locator(sel.loadTestStart)).toBeDisabled();
  await form.locator(sel.loadTestRate).fill("2");
  // Serving: nothing starts until the confirmation is ticked.
  await expect(form.locator(sel.loadTestStart)).toBeDisabled();
  await form.locator(sel.loadTestConfirm).check();
  await form.scrollIntoViewIfNeeded();
  await screenshot(page, "load-test-form");
  await form.locator(sel.loadTestStart).click();

  await page.waitForURL(/\/load-tests\/[^/]+$/);
  loadTestId = page.url().split("/").pop()!;
  await expect(page.locator(sel.loadTestStatus)).toHaveText("done", { timeout: 150_000 }); // the page polls: no reload
  await expect(page.locator(sel.loadTestGeneration)).toContainText("ran against generation");
  await expect(page.locator(sel.loadTestTiles)).toContainText("Throughput (ok)");
  await expect(page.locator(sel.loadTestSpectrum)).toBeVisible();
  await expect(page.locator(sel.loadTestTimeline)).toBeVisible();
  await expectReadable(page);
  await page.mouse.move(0, 0); // no tooltip left over
  await screenshot(page, "load-test-page");

  // What the page shows is the agent's upload, stored as it came.
  const row = await prisma.loadTest.findUniqueOrThrow({ where: { id: loadTestId } });
  const report = row.report as { format: string; model: string; open: { measured: { ok: number } } };
  expect(report.format).toBe("packrat-loadgen/1");
  expect(report.model).toBe("mobilenet-v2");
  await expect(page.locator(sel.loadTestTiles)).toContainText(`${report.open.measured.ok} ok of`);
  expect(
    await prisma.auditEvent.count({ where: { action: "load_test.start", targetId: deploymentId } }),
  ).toBeGreaterThan(0);

  // The deployment page lists it.
  await page.goto(`/deployments/${deploymentId}`);
  await expect(page.locator(sel.deploymentLoadTests)).toContainText("Poisson, 2 requests/s for 4 s");
});

test("a manager reads the Benchmarks page (Packrat's speedups first) but not a load test", async ({ page }) => {
  await signIn(page, "manager@example.com");
  await page.locator(sel.mainNav).getByRole("link", { name: "Benchmarks" }).click();
  await expect(page.locator(sel.benchmarkPackrat)).toBeVisible();
  await expect(page.locator(sel.benchmarkSpeedupChart)).toBeVisible();
  await expectReadable(page);
  await screenshot(page, "benchmarks");
  await page.goto(`/load-tests/${loadTestId}`);
  await expect(page.locator(sel.forbidden)).toBeVisible();
});
