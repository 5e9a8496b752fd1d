// From optimizer to production (issue #16) in Chromium at 1366×768 against `npm start` and its local agent serving
// MobileNetV2 (the demo deployment, generation 1: one instance with every thread of the T-core budget, B = 1).
// The spec writes three profiles of the demo model with Prisma (one complete and compatible, one perturbed, one
// measured on another core budget), then: an ML engineer opens the Optimizer, plans B = 2 and proposes; a manager
// sees the proposal with no approve control, and the API refuses him; an SRE approves; the agent applies it (the
// Agents page shows generation 2); the Audit page shows propose → approve → applied; rollback from the deployment
// page writes generation 3, a copy of generation 1. Screenshots: e2e/.artifacts/screens/optimizer-*.png.
import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Browser, type Page, type TestInfo } from "@playwright/test";
import { agentTopology } from "@packrat/contracts/host-topology";
import type { StoredJsonValue } from "@packrat/contracts/json-column";
import { budgetCores } from "../src/server/services/deployment-plans";
import { hardwareClassOf, runtimeSignatureOf } from "../src/server/services/profiling-service";
import { expectReadable, VIEWPORT } from "./planning-helpers";
import { sel } from "./selectors";
import { newSignedInPage } from "./sign-in";
import { until } from "./until";
import { sendOipTraffic } from "../test/oip-traffic";
import { newE2ePrisma } from "./e2e-database";
import { testEnv } from "../test/test-env";

const BASE = `http://localhost:${Number(testEnv.E2E_PORT ?? 3100)}`;
const prisma = newE2ePrisma();

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

/**
 * The fixture profile: L(t, b) = (3 + 7b) · (0.6 + 0.4/t) ms, an Amdahl curve where a second thread buys only
 * 1 / 0.8 = 1.25×. L(1, 1) = 10, L(1, 2) = 17, L(2, 1) = 8, L(2, 2) = 13.6.
 */
const latency = (t: number, b: number) => (3 + 7 * b) * (0.6 + 0.4 / t);

let cores = 0;
let deploymentId = "";
let goodProfile = "";
let perturbedProfile = "";
let otherBudgetProfile = "";
let proposalId = "";

async function trpcPost(request: APIRequestContext, path: string, input: unknown) {
  return request.post(`${BASE}/api/trpc/${path}`, {
    data: { json: input },
    headers: { origin: BASE, "content-type": "application/json" },
  });
}

const signedIn = (browser: Browser, email: string): Promise<Page> =>
  newSignedInPage(browser, email, { baseURL: BASE, viewport: VIEWPORT });

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const body = await page.screenshot({ fullPage: true, path: `e2e/.artifacts/screens/optimizer-${name}.png` });
  await testInfo.attach(`optimizer-${name}`, { body, contentType: "image/png" });
}

/**
 * Clicks an action that writes a new generation. That transaction can lose a deadlock to a concurrent heartbeat
 * (a known control-plane bug: a heartbeat locks the agent row, then its deployments; writing a generation locks the
 * deployment, then the agent); the page then shows Postgres's "write conflict or a deadlock" and the action is
 * clicked again, at most twice more. Any other error fails the test.
 */
async function clickThroughDeadlocks(
  action: () => Promise<void>,
  done: () => Promise<boolean>,
  alert: () => Promise<string>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await action();
    let outcome = "waiting";
    await expect
      .poll(
        async () => {
          outcome = (await done()) ? "done" : (await alert()).includes("deadlock") ? "deadlock" : "waiting";
          return outcome;
        },
        { timeout: 20_000 },
      )
      .not.toBe("waiting");
    if (outcome === "done" || attempt === 3) break;
  }
  expect(await done()).toBe(true);
}

/** Concurrent OIP requests of zeros at batch 1, so the dispatcher forms full batches of B = 2 on the new plan. */

async function insertProfile(
  d: {
    id: string;
    agentId: string;
    modelVersionId: string;
    modelVersion: { servingDims: unknown };
    agent: { cpuModel: string; topology: StoredJsonValue; ortVersion: string };
  },
  over: { cores: number; perturbed?: boolean },
): Promise<string> {
  const threads = [...new Set([1, 2, over.cores])].filter((t) => t <= over.cores).sort((a, b) => a - b);
  const batches = [1, 2, 4];
  const id = randomUUID();
  await prisma.profile.create({
    data: {
      id,
      modelVersionId: d.modelVersionId,
      agentId: d.agentId,
      deploymentId: d.id,
      dimensions: (d.modelVersion.servingDims ?? {}) as object,
      hardwareClass: hardwareClassOf(d.agent),
      runtimeSignature: runtimeSignatureOf(d.agent),
      cores: over.cores,
      threads,
      batches,
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      finishedAt: new Date(),
      perturbed: over.perturbed ?? false,
      perturbedRatePerS: over.perturbed ? 42 : null,
      cells: {
        create: threads.flatMap((t) =>
          batches.map((b) => {
            const ms = latency(t, b);
            return {
              threads: t,
              batch: b,
              meanMs: ms,
              p50Ms: ms,
              p90Ms: ms * 1.05,
              p99Ms: ms * 1.1,
              stddevMs: 0.05,
              ciHalfWidthMs: 0.02,
              iterations: 100,
              stopReason: "fixed-count",
              histogram: "",
            };
          }),
        ),
      },
    },
  });
  return id;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  // npm start registers MobileNetV2 and deploys it on the local agent in the background: wait until it serves.
  const d = await until(
    () =>
      prisma.deployment.findFirst({
        where: {
          removedAt: null,
          state: "serving",
          observedGeneration: 1,
          modelVersion: { model: { name: "mobilenet-v2" } },
          agent: { hostName: { not: "" } },
        },
        include: { agent: true, modelVersion: true },
        orderBy: { createdAt: "asc" },
      }),
    "npm start's demo deployment (MobileNetV2 on the local agent) to serve",
    220_000,
  );
  deploymentId = d.id;
  cores = budgetCores(agentTopology(d.agent), d.cpus);
  // Oldest first: the good one is the newest, so the page picks it by default.
  otherBudgetProfile = await insertProfile(d, { cores: cores + 2 });
  perturbedProfile = await insertProfile(d, { cores, perturbed: true });
  goodProfile = await insertProfile(d, { cores });
  // The validator needs the model's SLO.
  await prisma.model.update({ where: { id: d.modelVersion.modelId }, data: { sloDeadlineMs: 100, sloQuantile: 0.99 } });
});

test.afterAll(async () => {
  await prisma.$disconnect();
});

test("an ML engineer plans B = 2 for the demo deployment on the Optimizer page and proposes it", async ({
  browser,
}, testInfo) => {
  const page = await signedIn(browser, "ml@example.com");
  await page.getByRole("link", { name: "Optimizer" }).click();
  await expect(page.getByRole("heading", { name: "Optimizer", level: 1 })).toBeVisible();
  await page.locator(sel.optDeployment).selectOption(deploymentId);
  await expect(page.locator(sel.runningPlan)).toContainText("Running (generation 1)");
  await expect(page.locator(sel.runningPlan)).toContainText(
    `1 × ⟨${cores} thread${cores === 1 ? "" : "s"}, b = 1⟩; B = 1`,
  );

  // The profile measured on another core budget is listed, disabled, saying what differs.
  const incompatible = page.locator(`${sel.optProfile} option[value="${otherBudgetProfile}"]`);
  await expect(incompatible).toBeDisabled();
  await expect(incompatible).toHaveAttribute("title", `core budget (T): profile ${cores + 2}, deployment ${cores}`);
  // The newest compatible, unperturbed profile is chosen by default; the perturbed one carries a warning.
  await expect(page.locator(sel.optProfile)).toHaveValue(goodProfile);
  await page.locator(sel.optProfile).selectOption(perturbedProfile);
  await expect(page.locator(sel.perturbedWarning)).toContainText("42 requests/s");
  await page.locator(sel.optProfile).selectOption(goodProfile);
  await expect(page.locator(sel.perturbedWarning)).toHaveCount(0);

  await page.locator(sel.optBatch).fill("2");
  // B = 2 is b's {2} or {1, 1}: ⟨1, t, 2⟩ takes L(t, 2) ≥ 17 · (0.6 + 0.4/T) ≥ 10.2 ms, two one-thread instances
  // L(1, 1) = 10 ms. So ⟨2, 1, 1⟩ at 10 ms: 2 / 10 ms = 200 samples/s.
  const results = page.locator(sel.optimizerResults);
  await expect(results.locator(sel.optPlan)).toContainText("⟨2, 1, 1⟩");
  await expect(results.locator(sel.optLatency)).toContainText("10 ms");
  await expect(results.locator(sel.optThroughput)).toContainText("200 samples/s");
  // All threads ⟨1, T, 2⟩: 17 · (0.6 + 0.4/T) ms against 10 ms (1.36× at T = 2); one thread per instance is the plan.
  const allThreads = (17 * (0.6 + 0.4 / cores)) / 10;
  await expect(results.locator(sel.optSpeedupAll)).toContainText(`${Number(allThreads.toPrecision(3))}×`);
  await expect(results.locator(sel.optSpeedupOne)).toContainText("1×");
  await expect(results.locator(sel.baselines)).toContainText("All threads ⟨1, T, B⟩");
  // Why, from the plan itself: two one-thread instances on b = 1, where a second thread gives L(1, 1) / L(2, 1) =
  // 10 / (10 · 0.8) = 1.25× on twice the cores.
  await expect(results.locator(sel.whyLine)).toContainText(
    "2 instances (2 × 1 thread): at b = 1, going from 1 to 2 threads (2.00× the cores) is only 1.25× faster",
  );
  await expect(results.locator(sel.whyLine)).not.toContainText("one wide instance");
  // The allocation: two one-thread instances, each pinned to its own CPU of the budget.
  await expect(results.locator(sel.plannedCoreMap).locator(".cpu.owned:not(.budget)")).toHaveCount(2);
  await expect(results.locator(sel.plannedCoreMap)).toContainText("⟨1t, b1⟩");
  // The chart, with its axes named and in units.
  const chart = results.locator(sel.latencyVsB);
  await expect(chart.locator(sel.chartSvg)).toBeVisible();
  await expect(chart).toContainText("batch size B (samples)");
  await expect(chart).toContainText("batch latency (ms)");
  await expect(chart).toContainText("Packrat optimum");
  await expect(chart.locator(".recharts-line")).toHaveCount(3);
  // The validator: six checks against the 100 ms SLO, each with its numbers.
  await expect(results.locator(sel.optValidatorVerdict)).toHaveText(/passes|fails/);
  await expect(results.locator(`${sel.optChecks} tbody tr`)).toHaveCount(6);
  await expect(results.locator(`${sel.optChecks} tr[data-check="window-fraction"]`)).toContainText(
    "0.3 × 100 ms = 30.000 ms",
  );
  // The view is in the URL, so it can be shared.
  await expect(page).toHaveURL(new RegExp(`deployment=${deploymentId}&profile=${goodProfile}&B=2`));
  await expectReadable(page);
  await shot(page, testInfo, "plan");

  // Propose: a reason is required.
  await expect(page.locator(sel.proposeSubmit)).toBeDisabled();
  // Disabled, and it says why beside the button.
  await expect(page.getByTestId("propose-blocked")).toHaveText(
    "Write a reason first: the SRE who approves it reads it.",
  );
  await page
    .locator(sel.proposeReason)
    .fill("the profile says a second thread buys only 1.25×: two one-thread instances serve B = 2");
  // This one on its (synthetic) profile's predictions alone: the plan trial has a test of its own below.
  await page.locator(sel.proposeTrial).uncheck();
  await page.locator(sel.proposeSubmit).click();
  await expect(page.locator(sel.proposeDone)).toBeVisible();
  const row = await prisma.proposal.findFirstOrThrow({
    where: { deploymentId, state: "pending", source: "manual" },
    orderBy: { createdAt: "desc" },
  });
  proposalId = row.id;
  expect(row.batchSize).toBe(2);
  expect((row.evidence as { validation?: { checks: unknown[] } }).validation?.checks).toHaveLength(6);
  await page.context().close();
});

test("a manager sees the proposal but has no approve control, and the API refuses him", async ({
  browser,
}, testInfo) => {
  const page = await signedIn(browser, "manager@example.com");
  await page.locator(sel.mainNav).getByRole("link", { name: "Approvals" }).click();
  const card = page.locator(sel.proposal(proposalId));
  await expect(card).toContainText("two one-thread instances serve B = 2");
  const diff = card.locator(sel.proposalDiff);
  await expect(diff.locator('tr[data-row="Instances ⟨i, t, b⟩"]')).toContainText(
    `1 × ⟨${cores} thread${cores === 1 ? "" : "s"}, b = 1⟩`,
  );
  await expect(diff.locator('tr[data-row="Instances ⟨i, t, b⟩"]')).toContainText("2 × ⟨1 thread, b = 1⟩");
  await expect(diff.locator('tr[data-row="Batch size B"]')).toContainText("2 samples");
  await expect(diff.locator('tr[data-row="Predicted batch latency"]')).toContainText("10 ms");
  await expect(card.locator(sel.switchCost)).toHaveAttribute("data-kind", "active-passive");
  await expect(card.locator(sel.proposalValidation)).toBeVisible();
  await expect(card.locator(sel.approve)).toHaveCount(0);
  await expect(card.locator(sel.reject)).toHaveCount(0);
  await expectReadable(page);
  await shot(page, testInfo, "approvals-manager");

  const refused = await trpcPost(page.request, "proposals.approve", { proposalId });
  expect(refused.status()).toBe(403);
  const body = JSON.stringify(await refused.json());
  expect(body).toContain("FORBIDDEN");
  expect(body).toContain("You need the sre role");
  // The Optimizer is read-only for him: no Propose control.
  await page.goto(`/optimizer?deployment=${deploymentId}&profile=${goodProfile}&B=2`);
  await expect(page.locator(sel.optPlan)).toContainText("⟨2, 1, 1⟩");
  await expect(page.locator(sel.readOnlyNote)).toBeVisible();
  await expect(page.locator(sel.proposeForm)).toHaveCount(0);
  expect((await prisma.proposal.findUniqueOrThrow({ where: { id: proposalId } })).state).toBe("pending");
  await page.context().close();
});

test("an SRE approves; the agent applies generation 2; the Audit page shows propose → approve → applied", async ({
  browser,
}, testInfo) => {
  test.setTimeout(240_000);
  const page = await signedIn(browser, "sre@example.com");
  await page.goto("/approvals");
  const card = page.locator(sel.proposal(proposalId));
  await expect(card.locator(sel.approve)).toBeEnabled();
  await expectReadable(page);
  await shot(page, testInfo, "approvals-sre");
  // Rejecting needs a comment: the button waits for one.
  await expect(card.locator(sel.reject)).toBeDisabled();
  await card.locator(sel.decisionComment).fill("looks right; go");
  await clickThroughDeadlocks(
    () => card.locator(sel.approve).click(),
    async () => (await card.count()) === 0,
    async () => ((await card.count()) ? (await card.getByRole("alert").allTextContents()).join(" ") : ""),
  );
  const row = page.locator(sel.historyRow(proposalId));
  await expect(row.locator(sel.proposalState)).toHaveText(/applying|applied/);
  // The agent starts two one-thread instances beside the running one, switches, and reports it applied.
  await expect(row.locator(sel.proposalState)).toHaveText("applied", { timeout: 180_000 });
  await expect(row).toContainText("applied as generation 2 (active-passive)");
  await expect(row.locator(sel.phaseTimings)).toContainText(
    /start .* ms · warm .* ms · switch .* ms · drain .* ms · stop .* ms · total .* ms/,
  );
  await expect(row.locator(sel.latencyGap)).toContainText("predicted 10 ms; not measured yet");
  // Traffic: the agent measures the first full batches after the switch and reports their mean beside the
  // prediction (10 ms); more than 15% worse is flagged.
  const agent = await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId }, include: { agent: true } });
  await sendOipTraffic(agent.agent.inferenceUrl!, "mobilenet-v2", 8 * 6, 8);
  const storedMeasuredMs = async () =>
    (await prisma.proposal.findUniqueOrThrow({ where: { id: proposalId } })).measuredBatchLatencyMs;
  await until(storedMeasuredMs, "the measured batch latency", 60_000);
  const gap = row.locator(sel.latencyGap);
  await expect(gap).toContainText(/measured [\d.,]+ ms vs predicted 10 ms/, { timeout: 30_000 });
  // The page shows the stored figure (4 significant digits); a later heartbeat may still refine the mean, and the
  // page refetches every 5 s, so compare until they agree.
  // More than 15% over the prediction is flagged, by the figure shown: judged on the same reading of the text.
  await expect(async () => {
    const text = (await gap.textContent()) ?? "";
    const shownMs = Number(/measured ([\d.,]+) ms/.exec(text)?.[1]?.replace(/,/g, ""));
    const stored = (await storedMeasuredMs())!;
    expect(Math.abs(shownMs - stored)).toBeLessThanOrEqual(stored * 5e-4);
    expect(text.includes("worse than predicted by more than 15%"), text).toBe(shownMs / 10 - 1 > 0.15);
    if (shownMs / 10 - 1 <= 0.15) expect(text).not.toContain("worse than predicted");
  }).toPass({ timeout: 30_000 });
  await shot(page, testInfo, "approvals-history");

  await page.locator(sel.mainNav).getByRole("link", { name: "Agents" }).click();
  const agentRow = page.locator('tr[data-model="mobilenet-v2"]').first();
  await expect(agentRow.getByTestId("generation")).toHaveText("2 / 2", { timeout: 30_000 });

  await page.goto("/audit");
  const table = page.locator(sel.auditTable);
  await expect(table.locator('tr[data-action="proposal.applied"]')).toHaveCount(1);
  // This proposal's rows only: the agent's estimator may already have proposed again from the traffic above.
  const actions = await table
    .locator(`tr[data-target-id="${proposalId}"]`)
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
  const at = (a: string) => actions.indexOf(a);
  // Newest first: applied, then approve, then create.
  expect(at("proposal.applied")).toBeGreaterThanOrEqual(0);
  expect(at("proposal.applied")).toBeLessThan(at("proposal.approve"));
  expect(at("proposal.approve")).toBeLessThan(at("proposal.create"));
  expect(actions.filter((a) => a === "proposal.create")).toHaveLength(1);
  await page.context().close();
});

test("an SRE rolls the deployment back to generation 1 from its page: generation 3 copies it", async ({
  browser,
}, testInfo) => {
  test.setTimeout(180_000);
  const ml = await signedIn(browser, "ml@example.com");
  await ml.goto(`/deployments/${deploymentId}`);
  await expect(ml.locator(sel.generationHistory)).toContainText("proposal:");
  await expect(ml.locator(sel.rollback)).toHaveCount(0); // ML engineers read the page; SREs roll back
  await ml.context().close();

  const page = await signedIn(browser, "sre@example.com");
  await page.goto(`/deployments/${deploymentId}`);
  await expect(page.locator(sel.desiredGeneration)).toHaveText("2");
  const history = page.locator(sel.generationHistory);
  const first = history.locator("tbody tr").filter({ has: page.locator("td.gen", { hasText: /^1$/ }) });
  const current = history.locator("tbody tr").filter({ has: page.locator("td.gen", { hasText: /^2$/ }) });
  await expect(current.locator(sel.rollback)).toHaveCount(0); // not to the current one
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await clickThroughDeadlocks(
    () => first.locator(sel.rollback).click(),
    async () => (await page.locator(sel.desiredGeneration).textContent()) === "3",
    async () => (await page.getByRole("alert").allTextContents()).join(" "),
  );
  expect(dialogs[0]).toContain("Roll back to generation 1? This writes generation 3");
  await expect(history).toContainText("rollback to generation 1");
  const [copy, original] = await Promise.all([
    prisma.deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: 3 } },
    }),
    prisma.deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: 1 } },
    }),
  ]);
  expect(copy.plan).toEqual(original.plan);
  // The agent switches back: one instance with every thread again.
  await expect(page.locator(sel.observedGeneration)).toHaveText("3", { timeout: 150_000 });
  await expect(history.locator("tbody tr").first().locator(".badge")).toHaveText("applied", { timeout: 30_000 });
  await expectReadable(page);
  await shot(page, testInfo, "rollback");
  await page.context().close();
});

test("a plan trial checks a proposal before it is offered: predicted beside measured on the Optimizer page and on Approvals", async ({
  browser,
}, testInfo) => {
  test.setTimeout(420_000);
  const page = await signedIn(browser, "ml@example.com");
  await page.goto(`/optimizer?deployment=${deploymentId}&profile=${goodProfile}&B=2`);
  await expect(page.locator(sel.optPlan)).toContainText("⟨2, 1, 1⟩");
  await expect(page.locator(sel.optCorrected)).toBeVisible();
  await expect(page.locator(sel.proposeTrial)).toBeChecked();
  await page.locator(sel.proposeReason).fill("checked by a plan trial before it is offered");
  await page.locator(sel.proposeSubmit).click();
  await expect(page.locator(sel.proposeDone)).toBeVisible();
  const trial = page.locator(sel.planTrial);
  await expect(trial).toBeVisible();
  // The agent runs the candidates (the optimizer's top plans and ⟨1, T, 2⟩) on the real MobileNetV2, interleaved.
  await expect(trial).toHaveAttribute("data-state", "done", { timeout: 360_000 });
  const table = trial.locator(sel.planTrialTable);
  await expect(table.locator("tbody tr").first()).toBeVisible();
  await expect(table).toContainText("optimizer #1");
  await expect(table).toContainText("⟨1, T, B⟩");
  await expect(table.locator("tbody tr td:nth-child(5)").first()).toContainText(/ms \[/);
  await expect(trial.locator(sel.planTrialStatus)).toContainText(/trial (confirms|contradicts)|within noise/);
  await expectReadable(page);
  await shot(page, testInfo, "optimizer-trial");
  const row = await prisma.proposal.findFirstOrThrow({
    where: { deploymentId, source: "manual", reason: { startsWith: "checked by a plan trial" } },
    orderBy: { createdAt: "desc" },
  });
  expect(row.state).toBe("pending");
  await page.context().close();

  const sre = await signedIn(browser, "sre@example.com");
  await sre.goto("/approvals");
  const card = sre.locator(sel.proposal(row.id));
  await expect(card.locator(sel.planTrialTable)).toBeVisible();
  await expect(card.locator(sel.planTrialTable)).toContainText("Measured in the trial");
  await expectReadable(sre);
  await shot(sre, testInfo, "approvals-trial");
  await sre.context().close();
});
