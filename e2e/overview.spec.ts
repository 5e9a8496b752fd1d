import { expect, test } from "@playwright/test";
import { servingLoop } from "@packrat/core/overview/serving-loop";
import { DEMO_MODEL, demoDeployment, e2ePrisma, sendTrafficAndWait } from "./live-traffic";
import { sel } from "./selectors";
import { screenshot, signIn } from "./sign-in";

test("the overview shows a healthy control plane on the embedded database", async ({ page }) => {
  await signIn(page, "ml@example.com");
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.locator(sel.healthStatus)).toHaveText("healthy");
  await expect(page.locator(sel.healthCard)).toContainText(/reachable \([\d.]+ ms\)/);
  await expect(page.locator(sel.healthCard)).toContainText(/current \(\d+ applied\)/);
  await expect(page.locator(sel.mainNav).getByRole("link", { name: "Overview" })).toHaveAttribute(
    "aria-current",
    "page",
  );
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

test("the Overview names the demo deployment and its state, shows the loop with profiling next, then the traffic", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const deployment = await demoDeployment();
  await signIn(page, "sre@example.com");
  await page.goto("/");
  const row = page.getByTestId("overview-deployments").locator(`tr[data-model="${DEMO_MODEL}"]`);
  await expect(row).toContainText(`${DEMO_MODEL} v1`);
  await expect(row.getByTestId("overview-state")).toHaveText("serving");
  await expect(page.getByTestId("overview-agents")).toContainText("1 online");
  // The loop's checklist as the database has it: on a fresh system profiling is next; after other specs (the
  // optimizer's profiles and proposals) a later step, or none once a proposal was applied.
  const prisma = e2ePrisma();
  const loop = servingLoop({
    deployments: await prisma.deployment.count({ where: { removedAt: null } }),
    completeProfiles: await prisma.profile.count({ where: { status: "complete" } }),
    proposals: await prisma.proposal.count(),
    appliedProposals: await prisma.proposal.count({ where: { state: "applied" } }),
  });
  if (loop.next === null) await expect(page.getByTestId("overview-loop")).toHaveCount(0);
  else {
    for (const step of loop.steps) {
      await expect(page.getByTestId(`loop-${step.key}`)).toHaveAttribute(
        "data-state",
        step.done ? "done" : step.key === loop.next ? "next" : "todo",
      );
    }
  }
  for (const tile of ["overview-approvals", "overview-alerts", "overview-jobs", "overview-cost", "overview-rate"])
    await expect(page.getByTestId(tile)).toBeVisible();
  await screenshot(page, "overview-fresh");

  await sendTrafficAndWait(deployment.id, deployment.agent.inferenceUrl!, 400, 4);
  await page.reload();
  await expect(page.getByTestId("overview-rate").locator(".overview-figure")).not.toHaveText("0.00 /s");
  await expect(row.locator("td.num").nth(1)).toHaveText(/\d+(\.\d+)? ms/);
  await screenshot(page, "overview-traffic");
  // Each tile leads to its page.
  await page.getByTestId("overview-approvals").click();
  await expect(page).toHaveURL(/\/approvals$/);
});

test("a manager's Overview has no agent, deployment or job tiles (not theirs to read), but cost and approvals", async ({
  page,
}) => {
  await signIn(page, "manager@example.com");
  await page.goto("/");
  await expect(page.getByTestId("overview-cost")).toBeVisible();
  await expect(page.getByTestId("overview-approvals")).toBeVisible();
  for (const tile of ["overview-agents", "overview-rate", "overview-jobs", "overview-deployments"])
    await expect(page.getByTestId(tile)).toHaveCount(0);
});
