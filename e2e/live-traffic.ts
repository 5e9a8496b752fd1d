// Live data for the planning specs: npm start's MobileNetV2 demo deployment, traffic sent straight to its agent's
// OIP port, and a wait until the heartbeats have folded that traffic into the deployment's rollups.
import type { PrismaClient } from "../src/generated/prisma/client";
import { sendOipTraffic } from "../test/oip-traffic";
import { until } from "./until";
import { newE2ePrisma } from "./e2e-database";

export const DEMO_MODEL = "mobilenet-v2";

let client: PrismaClient | undefined;
export function e2ePrisma(): PrismaClient {
  client ??= newE2ePrisma();
  return client;
}

/** The demo deployment once it serves (npm start deploys it on first start). */
export async function demoDeployment() {
  return until(
    () =>
      e2ePrisma().deployment.findFirst({
        where: { removedAt: null, state: "serving", modelVersion: { model: { name: DEMO_MODEL } } },
        include: { agent: true },
      }),
    "the MobileNetV2 demo deployment to serve",
    180_000,
  );
}

/** `total` requests of zeros at batch 1, `concurrent` at a time; resolves once the rollups count them all. */
export async function sendTrafficAndWait(
  deploymentId: string,
  inferenceUrl: string,
  total: number,
  concurrent: number,
): Promise<void> {
  const counted = async () =>
    (await e2ePrisma().metricsRollup.findMany({ where: { deploymentId } })).reduce(
      (s, r) => s + r.requestsCompleted,
      0,
    );
  const before = await counted();
  await sendOipTraffic(inferenceUrl, DEMO_MODEL, total, concurrent);
  await until(async () => (await counted()) >= before + total, "the heartbeats to report the traffic", 60_000);
}
