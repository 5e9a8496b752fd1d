// The batching page against a deployment (issue #20) in Chromium at 1366×768 against `npm start` and its local agent
// serving MobileNetV2: "Propose this" lands on the Optimizer pre-filled with the validator's window and max batch;
// an ML engineer proposes a two-point sweep, which waits on the Approvals page; an SRE approves it (the confirmation
// names the pending proposals it expires); the control plane runs both points on the agent and restores the
// configuration as a new generation; the measured points are drawn over the model. Screenshots:
// e2e/.artifacts/screens/planning-batching-sweep-*.png. The sweep moves the demo deployment's generation on, so this
// file sorts after optimizer.spec.ts, whose checks count generations from 1.
import { randomUUID } from "node:crypto";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { agentTopology } from "@packrat/contracts/host-topology";
import { budgetCores } from "../src/server/services/deployment-plans";
import { hardwareClassOf, runtimeSignatureOf } from "../src/server/services/profiling-service";
import {
  attachScreenshot,
  expectReadable,
  field,
  fieldError,
  PLANNER_USER,
  setField,
  VIEWPORT,
} from "./planning-helpers";
import { sel } from "./selectors";
import { newSignedInPage } from "./sign-in";
import { until } from "./until";
import { newE2ePrisma } from "./e2e-database";
import { testEnv } from "../test/test-env";

const BASE = `http://localhost:${Number(testEnv.E2E_PORT ?? 3100)}`;
const prisma = newE2ePrisma();

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

let deploymentId = "";
let baseGeneration = 0;
let sweepId = "";
let profileId = "";
/** The fixture profile's batch latency: affine in b, a second thread worth 1.25×. L(1, 1) = 3.5 ms. */
const latency = (t: number, b: number) => (2 + 1.5 * b) * (0.6 + 0.4 / t);
const BATCHES = [1, 2, 4, 8, 16, 32];

const signedIn = (browser: Browser, email: string): Promise<Page> =>
  newSignedInPage(browser, email, { baseURL: BASE, viewport: VIEWPORT });

test.beforeAll(async () => {
  test.setTimeout(240_000);
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
        include: { agent: true, modelVersion: true },
      }),
    "npm start's demo deployment (MobileNetV2 on the local agent) to serve",
    220_000,
  );
  deploymentId = d.id;
  // A complete profile of the demo model measured "here", so the Optimizer can plan what "Propose this" carries and
  // the batching page can take T(B) from it.
  const cores = budgetCores(agentTopology(d.agent), d.cpus);
  const threads = [...new Set([1, cores])];
  profileId = randomUUID();
  await prisma.profile.create({
    data: {
      id: profileId,
      modelVersionId: d.modelVersionId,
      agentId: d.agentId,
      deploymentId: d.id,
      dimensions: (d.modelVersion.servingDims ?? {}) as object,
      hardwareClass: hardwareClassOf(d.agent),
      runtimeSignature: runtimeSignatureOf(d.agent),
      cores,
      threads,
      batches: BATCHES,
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      finishedAt: new Date(),
      cells: {
        create: threads.flatMap((t) =>
          BATCHES.map((b) => ({
            threads: t,
            batch: b,
            meanMs: latency(t, b),
            p50Ms: latency(t, b),
            p90Ms: latency(t, b),
            p99Ms: latency(t, b),
            stddevMs: 0.05,
            ciHalfWidthMs: 0.02,
            iterations: 100,
            stopReason: "fixed-count",
            histogram: "",
          })),
        ),
      },
    },
  });
});

test.afterAll(async () => {
  await prisma.$disconnect();
});

test("Propose this: the validator's window and max batch land on the Optimizer, pre-filled for the chosen deployment", async ({
  browser,
}, testInfo) => {
  const page = await signedIn(browser, PLANNER_USER);
  await page.goto("/planning/batching");
  await page.locator(sel.presets).getByRole("button", { name: "Table 10: ResNet-50, 500 QPS, 50 ms SLO" }).click();
  await expect(page.locator(sel.validatorVerdict)).toHaveText("passes");
  // Without a deployment there is nothing to propose for.
  await expect(page.getByTestId("propose")).toHaveCount(0);
  await expect(page.getByTestId("propose-note")).toHaveText("choose a deployment above to propose this");
  await page.getByTestId("batching-deployment-select").selectOption(deploymentId);
  await expect(page.getByTestId("batching-deployment-facts")).toContainText("serving");
  // The chosen deployment stays in the address bar beside the planner's state.
  await expect.poll(() => new URL(page.url()).searchParams.get("deployment")).toBe(deploymentId);
  await expect(page.getByTestId("propose-note")).toContainText("on the Optimizer, for mobilenet-v2");
  // A model's complete profile as the T(B) source: choose its t = 1 curve; the fit and its residuals show.
  await setField(page, "source", "profile");
  await setField(page, "profile", profileId);
  await setField(page, "threads", "7");
  await expect(page.locator(fieldError("threads"))).toContainText("no curve for t = 7");
  await setField(page, "threads", "1");
  await expect(page.locator(sel.residuals).locator("tbody tr")).toHaveCount(BATCHES.length);
  // L(1, b) = (2 + 1.5b)(0.6 + 0.4) = 2 + 1.5b ms exactly, so the fit is the line T(B) = 2 + 1.5·B.
  await expect(page.getByTestId("fit-formula")).toContainText("T(B) = 2 ms + 1.5 ms · B");
  await expectReadable(page);
  await attachScreenshot(page, testInfo, "batching-sweep-deployment");
  await page.locator(sel.presets).getByRole("button", { name: "Table 10: ResNet-50, 500 QPS, 50 ms SLO" }).click();

  await page.getByTestId("propose").click();
  await page.waitForURL(/\/optimizer\?/);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toMatchObject({
    deployment: deploymentId,
    B: "32",
    timeout: "12",
    from: "batching",
  });
  await expect(page.getByTestId("prefilled-from-batching")).toContainText(
    "window T_w = 12 ms as the batch timeout, max batch B_max = 32 as B",
  );
  await expect(page.getByTestId("opt-batch")).toHaveValue("32");
  await expect(page.getByTestId("opt-timeout")).toHaveValue("12");
  await expect(page.getByTestId("opt-deployment")).toHaveValue(deploymentId);
  await expect(page.getByTestId("opt-profile")).toHaveValue(profileId);
  await expect(page.getByTestId("propose-reason")).toHaveValue("Batching page validator: window 12 ms, max batch 32");
  await expectReadable(page);
  await page.screenshot({
    fullPage: true,
    path: "e2e/.artifacts/screens/planning-batching-sweep-optimizer-prefilled.png",
  });
  // Proposed as it came: a pending proposal with B = 32 and a 12 ms timeout (the sweep below expires it).
  await page.getByTestId("propose-trial").uncheck(); // on its predictions: the sweep measures it
  await page.getByTestId("propose-submit").click();
  await expect(page.getByTestId("propose-done")).toBeVisible();
  const proposal = await prisma.proposal.findFirstOrThrow({
    where: { deploymentId, state: "pending", source: "manual" },
    orderBy: { createdAt: "desc" },
  });
  expect([proposal.batchSize, proposal.batchTimeoutMs]).toEqual([32, 12]);
});

test("an ML engineer proposes a two-point sweep; it waits on Approvals; an SRE approves; both points are measured, the configuration is restored, and the points are drawn over the model", async ({
  browser,
}, testInfo) => {
  test.setTimeout(420_000);
  const before = await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
  baseGeneration = before.generation;
  const ml = await signedIn(browser, PLANNER_USER);
  await ml.goto(`/planning/batching?deployment=${deploymentId}`);
  await expect(ml.getByTestId("sweep-form")).toBeVisible();
  // A bad candidate is named before anything is sent.
  await ml.getByTestId("sweep-candidates").fill("0/1, 2-4");
  await expect(ml.getByTestId("sweep-candidates-error")).toContainText('"2-4" is not window/max batch');
  await expect(ml.getByTestId("sweep-submit")).toBeDisabled();
  await ml.getByTestId("sweep-candidates").fill("0/1, 5/4");
  await ml.getByTestId("sweep-duration").fill("3");
  await ml.getByTestId("sweep-rate").fill("10");
  await ml.getByTestId("sweep-reason").fill("e2e: measure two points on the demo deployment");
  await ml.getByTestId("sweep-submit").click();
  await expect(ml.getByTestId("sweep-proposed")).toContainText("waits for an SRE");
  await expect(ml.getByTestId("sweep-row").first()).toHaveAttribute("data-state", "pending");
  const sweep = await prisma.batchingSweep.findFirstOrThrow({
    where: { deploymentId, state: "pending" },
    orderBy: { createdAt: "desc" },
  });
  sweepId = sweep.id;
  // A second sweep for the deployment is refused while this one is pending.
  await ml.getByTestId("sweep-reason").fill("a second one");
  await ml.getByTestId("sweep-submit").click();
  await expect(ml.getByTestId("sweep-error")).toContainText("one sweep per deployment at a time");

  const sre = await signedIn(browser, "sre@example.com");
  await sre.goto("/approvals");
  const card = sre.locator(`[data-proposal-id="${sweep.proposalId}"]`);
  await expect(card.getByTestId("sweep-proposal")).toContainText("0 ms / 1, 5 ms / 4");
  const otherPending = await prisma.proposal.count({
    where: { deploymentId, state: "pending", id: { not: sweep.proposalId } },
  });
  await expect(card.getByTestId("sweep-confirm")).toContainText(
    otherPending === 0
      ? "No other proposal for this deployment is pending."
      : `The ${otherPending} other pending proposal`,
  );
  await expect(card.getByTestId("approve")).toBeDisabled();
  await expectReadable(sre);
  await sre.screenshot({ fullPage: true, path: "e2e/.artifacts/screens/planning-batching-sweep-approvals.png" });
  await card.getByTestId("sweep-confirm-check").check();
  // Approving writes a generation: it can lose a deadlock to a heartbeat (see optimizer.spec.ts); then it is retried.
  for (let attempt = 1; attempt <= 3; attempt++) {
    await card.getByTestId("approve").click();
    const outcome = await until(
      async () =>
        (await sre.getByTestId("approve-notice").count()) > 0
          ? "approved"
          : (await card.getByRole("alert").count()) > 0
            ? await card.getByRole("alert").innerText()
            : null,
      "the approval",
      30_000,
    );
    if (outcome === "approved" || !outcome.includes("deadlock")) break;
  }
  await expect(sre.getByTestId("approve-notice")).toContainText(
    `Sweep started: its first temporary generation is ${baseGeneration + 1}.`,
  );
  expect(otherPending).toBeGreaterThan(0); // the Optimizer's proposal above
  await expect(sre.getByTestId("approve-notice")).toContainText(
    `${otherPending} pending proposal${otherPending === 1 ? "" : "s"} for this deployment expired.`,
  );
  expect(await prisma.proposal.count({ where: { deploymentId, state: "pending" } })).toBe(0);

  const done = await until(
    async () => {
      const s = await prisma.batchingSweep.findUniqueOrThrow({ where: { id: sweepId } });
      return s.state === "done" || s.state === "failed" ? s : null;
    },
    "the sweep to end",
    360_000,
  );
  expect(done.failureReason).toBeNull();
  expect(done.restoreGeneration).toBe(baseGeneration + 3);
  const after = await until(
    async () => {
      const d = await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
      return d.observedGeneration === baseGeneration + 3 && d.state === "serving" ? d : null;
    },
    "the restored generation to serve",
    60_000,
  );
  expect(after.generation).toBe(baseGeneration + 3);

  await ml.reload();
  await expect(ml.getByTestId("sweep-row").first()).toHaveAttribute("data-state", "done");
  await expect(ml.getByTestId("sweep-progress").first()).toContainText(
    `generation ${baseGeneration}'s configuration restored as generation ${baseGeneration + 3}`,
  );
  await expect(ml.getByTestId("measured-vs-model").getByTestId("gap-row")).toHaveCount(2);
  await expect(ml.locator(sel.paretoChart)).toContainText("measured (load test, 10 req/s offered)");
  await expect(ml.locator(sel.paretoChart)).toContainText("frontier (model)");
  await expect(ml.locator(field("rate"))).toBeVisible();
  await expectReadable(ml);
  await attachScreenshot(ml, testInfo, "batching-sweep-measured");
});
