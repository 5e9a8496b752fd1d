// `npm start`'s local agent: its token (created once; plaintext in a 0600 file under the data dir, hash in the
// database) and, on first start, MobileNetV2 from the zoo deployed to it, so a new user sees a live agent at once.
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type { PrismaClient } from "@/generated/prisma/client";
import { zooEntry } from "@/modelzoo/registry";
import { recordAudit } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { generateAgentToken, hashAgentToken } from "./agent-tokens-service";
import { DEMO_HOURLY_USD, ensureDemoPrice } from "./cost-service";
import { deployModelAs } from "./deployments-service";
import { runZooRegistration } from "./models-zoo-service";

const SYSTEM = { type: "system" as const, label: "npm start" };
export const DEMO_ZOO_MODEL = "mobilenet-v2";

/** The local agent's token: the one in `tokenFile` while the database still accepts it, else a new one. */
export async function ensureLocalAgentToken(
  tokenFile: string,
  prisma: PrismaClient = db(),
): Promise<{ token: string; tokenId: string; created: boolean }> {
  if (existsSync(tokenFile)) {
    const token = readFileSync(tokenFile, "utf8").trim();
    const row = await prisma.agentToken.findUnique({ where: { tokenHash: hashAgentToken(token) } });
    if (row && !row.revokedAt) return { token, tokenId: row.id, created: false };
  }
  const { token, tokenHash, prefix } = generateAgentToken();
  const id = randomUUID();
  await prisma.$transaction(async (tx) => {
    await tx.agentToken.create({ data: { id, name: "local agent (npm start)", tokenHash, prefix } });
    await recordAudit(tx, {
      actor: SYSTEM,
      action: "agent_token.create",
      target: { type: "agent_token", id, label: "local agent (npm start)" },
      after: { prefix },
    });
  });
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { token, tokenId: id, created: true };
}

/**
 * First start only (a marker file remembers): registers MobileNetV2 from the zoo (seeded synthetic weights) and
 * deploys it on every usable CPU of the local agent, once that agent has registered.
 */
export async function ensureDemoDeployment(
  tokenId: string,
  markerFile: string,
  log: (line: string) => void,
  prisma: PrismaClient = db(),
): Promise<void> {
  if (existsSync(markerFile)) return;
  const deadline = Date.now() + 120_000;
  let agent = null;
  while (
    !(agent = await prisma.agent.findFirst({ where: { tokens: { some: { id: tokenId } }, decommissionedAt: null } }))
  ) {
    if (Date.now() > deadline) {
      log("the local agent did not register within 2 minutes; no demo deployment");
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const existing = await prisma.deployment.findFirst({ where: { agentId: agent.id, removedAt: null } });
  if (!existing) {
    const entry = zooEntry(DEMO_ZOO_MODEL);
    log(`registering ${entry.title} from the zoo (synthetic weights) for the demo deployment`);
    const registered = await runZooRegistration({
      id: `npm-start-${randomUUID()}`,
      attempt: 1,
      progress: async () => {},
      params: {
        zooName: DEMO_ZOO_MODEL,
        seed: entry.defaultSeed,
        builderVersion: String(entry.builderVersion),
        requestedBy: null,
      },
    });
    await deployModelAs(
      { actor: SYSTEM, userId: null },
      { agentId: agent.id, modelVersionId: registered.versionId, cpus: agent.allowedCpus },
      prisma,
    );
    log(
      `deployed ${registered.modelName} v${registered.versionNumber} to the local agent (CPUs ${agent.allowedCpus.join(", ")})`,
    );
  }
  writeFileSync(markerFile, JSON.stringify({ deployedAt: new Date().toISOString() }));
}

/**
 * With demo users on: once the local agent has registered, a labelled demo price for its hardware class (unless
 * the class has a price already), so the cost report has numbers on a fresh install.
 */
export async function ensureDemoPriceForLocalAgent(
  tokenId: string,
  log: (line: string) => void,
  prisma: PrismaClient = db(),
): Promise<void> {
  const deadline = Date.now() + 120_000;
  let agent = null;
  while (
    !(agent = await prisma.agent.findFirst({ where: { tokens: { some: { id: tokenId } }, decommissionedAt: null } }))
  ) {
    if (Date.now() > deadline) {
      log("the local agent did not register within 2 minutes; no demo price");
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const seeded = await ensureDemoPrice(agent.id, SYSTEM, prisma);
  if (seeded)
    log(
      `seeded a demo price of $${DEMO_HOURLY_USD}/h for hardware class ${seeded} (labelled "demo price"; admins set real ones on /cost)`,
    );
}
