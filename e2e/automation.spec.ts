// Automation in Chromium against `npm start`: an ML engineer creates a personal API token on the account page
// (shown once; a role above theirs is not offered), the token calls the API without a browser (no Origin, no
// cookie) and is refused once revoked; the Optimizer page exports its plan for Triton, OVMS and KServe with what
// each format cannot express. Screenshots: e2e/.artifacts/screens/automation-*.png.
import { randomUUID } from "node:crypto";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { agentTopology } from "@packrat/contracts/host-topology";
import { budgetCores } from "../src/server/services/deployment-plans";
import { hardwareClassOf, runtimeSignatureOf } from "../src/server/services/profiling-service";
import { recordSecret } from "../test/secrets-list";
import { VIEWPORT } from "./planning-helpers";
import { newSignedInPage } from "./sign-in";
import { until } from "./until";
import { newE2ePrisma } from "./e2e-database";
import { testEnv } from "../test/test-env";

const BASE = `http://localhost:${Number(testEnv.E2E_PORT ?? 3100)}`;
const prisma = newE2ePrisma();

test.use({ viewport: VIEWPORT });
test.describe.configure({ mode: "serial" });

let deploymentId = "";
let profileId = "";

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const body = await page.screenshot({ fullPage: true, path: `e2e/.artifacts/screens/automation-${name}.png` });
  await testInfo.attach(`automation-${name}`, { body, contentType: "image/png" });
}

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
        include: { agent: true, modelVersion: true },
        orderBy: { createdAt: "asc" },
      }),
    "npm start's demo deployment to serve",
    220_000,
  );
  deploymentId = d.id;
  const cores = budgetCores(agentTopology(d.agent), d.cpus);
  // A complete profile where one-thread instances win: L(t, b) = (3 + 7b)(0.6 + 0.4/t) ms.
  const threads = [...new Set([1, 2, cores])].filter((t) => t <= cores).sort((a, b) => a - b);
  const batches = [1, 2, 4];
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
      batches,
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      finishedAt: new Date(),
      perturbed: false,
      cells: {
        create: threads.flatMap((t) =>
          batches.map((b) => {
            const ms = (3 + 7 * b) * (0.6 + 0.4 / t);
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
});

test.afterAll(async () => {
  await prisma.$disconnect();
});

test("an ML engineer creates an API token on the account page; it works without a browser until revoked", async ({
  browser,
  playwright,
}, testInfo) => {
  const page = await newSignedInPage(browser, "ml@example.com", { baseURL: BASE, viewport: VIEWPORT });
  await page.getByTestId("account-link").click();
  await expect(page.getByRole("heading", { name: "Your account", level: 1 })).toBeVisible();
  const form = page.getByTestId("create-api-token-form");
  // Only the user's own role is offered: a token is never above its user.
  await expect(form.locator('select[name="role"] option')).toHaveText(["ML engineer"]);
  await form.locator('input[name="name"]').fill("ci-pipeline");
  await form.locator('select[name="expiresInDays"]').selectOption("90");
  await form.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-api-token-value").textContent())!.trim();
  recordSecret("api token", token);
  expect(token).toMatch(/^prpat_/);
  await expect(page.getByTestId("api-tokens-table").locator('tr[data-name="ci-pipeline"]')).toContainText("active");
  await shot(page, testInfo, "account-token");

  // A client with no cookie and no Origin: the token is the caller (ML engineer), and its role gate holds.
  const api = await playwright.request.newContext({
    baseURL: BASE,
    extraHTTPHeaders: { authorization: `Bearer ${token}` },
  });
  const me = await api.get(`/api/trpc/users.me`);
  expect(me.status()).toBe(200);
  expect(
    ((await me.json()) as { result: { data: { json: { email: string; role: string } } } }).result.data.json,
  ).toMatchObject({ email: "ml@example.com", role: "ml_engineer" });
  const deploy = await api.post(`/api/trpc/deployments.deploy`, {
    data: { json: {} },
    headers: { "content-type": "application/json" },
  });
  expect(deploy.status()).toBe(403);

  // Done is shown once: after Done the value is gone from the page; revoking refuses the very next call.
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("new-api-token")).toHaveCount(0);
  await page
    .getByTestId("api-tokens-table")
    .locator('tr[data-name="ci-pipeline"]')
    .getByRole("button", { name: "Revoke" })
    .click();
  await expect(page.getByTestId("api-tokens-table").locator('tr[data-name="ci-pipeline"]')).toContainText("revoked");
  expect((await api.get(`/api/trpc/users.me`)).status()).toBe(401);
  await api.dispose();
  await page.context().close();
});

test("the Optimizer page exports its plan as a Triton config, an OVMS config and a KServe manifest", async ({
  browser,
}, testInfo) => {
  const page = await newSignedInPage(browser, "ml@example.com", { baseURL: BASE, viewport: VIEWPORT });
  await page.goto(`/optimizer?deployment=${deploymentId}&profile=${profileId}&B=2`);
  const panel = page.getByTestId("plan-export");
  await expect(panel).toBeVisible({ timeout: 30_000 });
  // ⟨2, 1, 1⟩ (two one-thread instances on b = 1) is uniform: Triton says it as two CPU instances of one thread.
  const content = panel.getByTestId("export-content");
  await expect(content).toContainText("kind: KIND_CPU");
  await expect(content).toContainText("count: 2");
  await expect(content).toContainText('key: "intra_op_thread_count"');
  await expect(content).toContainText("preferred_batch_size: [ 1 ]");
  // The allocator pins each instance to a CPU: that is named as lost.
  await expect(panel.getByTestId("export-differences")).toContainText("per-instance CPU lists");
  await panel.getByTestId("export-content").scrollIntoViewIfNeeded();
  await shot(page, testInfo, "optimizer-export-triton");
  const download = page.waitForEvent("download");
  await panel.getByTestId("export-download").click();
  expect((await download).suggestedFilename()).toBe("config.pbtxt");

  await panel.getByTestId("export-tab-ovms").click();
  await expect(content).toContainText('"NUM_STREAMS": "2"');
  await expect(content).toContainText('"INFERENCE_NUM_THREADS": "2"');
  await panel.getByTestId("export-tab-kserve").click();
  await expect(content).toContainText("kind: InferenceService");
  await expect(content).toContainText("runtime: kserve-tritonserver");
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/.artifacts/screens/automation-optimizer-export-kserve.png" });
  await page.context().close();
});
