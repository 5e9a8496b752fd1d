// A small world for procedure fuzzing, so generated ids sometimes name real rows and calls get past "not found":
// one user per role, an agent (8 synthetic CPUs) registered with a token, an enrollment token, a model with a
// version (tiny CNN) deployed on the agent, a complete profile, and a pending proposal.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@/generated/prisma/client";
import { AGENT_PROTOCOL_VERSION } from "@/contracts/agent-protocol";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { createCaller } from "@/server/api/root";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { registerWithAgentToken } from "@/server/services/agent-registration-service";
import { authenticateAgentToken, createAgentToken } from "@/server/services/agent-tokens-service";
import { hardwareClassOf, runtimeSignatureOf } from "@/server/services/profiling-service";
import { insertModelVersion } from "../../../test/control-plane-harness";

export interface NamedIds {
  userId: string;
  agentId: string;
  modelId: string;
  modelVersionId: string;
  deploymentId: string;
  profileId: string;
  proposalId: string;
}

export interface ProcedureFixtures {
  admin: SessionUser;
  /** Every id of every row the fixtures made, for id-shaped inputs. */
  ids: string[];
  named: NamedIds;
}

const CPUS = [0, 1, 2, 3, 4, 5, 6, 7];

export async function createProcedureFixtures(prisma: PrismaClient, dataDir: string): Promise<ProcedureFixtures> {
  const admin = await insertTestUser(prisma, "admin");
  const others = await Promise.all(
    (["ml_engineer", "sre", "manager"] as const).map((role) => insertTestUser(prisma, role)),
  );
  const caller = { user: admin, requestId: "fixtures" };
  const { token } = await createAgentToken(caller, { name: "fuzz-agent" });
  const identity = await authenticateAgentToken(token);
  if (!identity) throw new Error("the fixture agent token does not authenticate");
  const { agentId } = await registerWithAgentToken(
    identity,
    {
      protocolVersion: AGENT_PROTOCOL_VERSION,
      agentVersion: "0.0.0-fuzz",
      hostName: "fuzz-host",
      bootId: randomUUID(),
      topology: {
        sockets: [
          { id: 0, nodes: [{ id: 0, cores: CPUS.map((cpu) => ({ socket: 0, node: 0, coreId: cpu, cpus: [cpu] })) }] },
        ],
      },
      allowedCpus: CPUS,
      cpuModel: "Fuzz CPU",
      memoryBytes: 8 * 1024 ** 3,
      ortVersion: "1.30.0",
    },
    "fixtures",
    prisma,
  );
  const api = createCaller(contextFor(admin));
  await api.enrollmentTokens.create({ name: "fuzz-enrollment" });
  const version = await insertModelVersion(
    dataDir,
    "fuzz-tiny-cnn",
    buildTinyCnn({ seed: 3, producerVersion: "packrat-fuzz" }),
  );
  const deployment = await api.deployments.deploy({ agentId, modelVersionId: version.id, cpus: [0, 1] });
  const agent = await prisma.agent.findUniqueOrThrow({ where: { id: agentId } });
  const latency: Record<string, number> = { "1x1": 1.2, "1x2": 2.2, "2x1": 1.0, "2x2": 1.9 };
  const profile = await prisma.profile.create({
    data: {
      id: randomUUID(),
      modelVersionId: version.id,
      agentId,
      deploymentId: deployment.id,
      hardwareClass: hardwareClassOf(agent),
      runtimeSignature: runtimeSignatureOf(agent),
      cores: 2,
      threads: [1, 2],
      batches: [1, 2],
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      cells: {
        create: Object.entries(latency).map(([key, ms]) => {
          const [threads, batch] = key.split("x").map(Number);
          return {
            threads: threads!,
            batch: batch!,
            meanMs: ms,
            p50Ms: ms,
            p90Ms: ms,
            p99Ms: ms,
            stddevMs: 0.01,
            ciHalfWidthMs: 0.01,
            iterations: 100,
            stopReason: "fixed-count",
            histogram: "",
          };
        }),
      },
    },
  });
  const proposal = await createCaller(contextFor(others[0]!)).proposals.create({
    deploymentId: deployment.id,
    profileId: profile.id,
    batchSize: 2,
    reason: "fuzz fixture",
  });

  const tables = [
    "user",
    "agent",
    "agent_token",
    "enrollment_token",
    "model",
    "model_version",
    "deployment",
    "profile",
    "proposal",
    "job",
  ];
  const ids: string[] = [];
  for (const table of tables) {
    const rows = await prisma.$queryRawUnsafe<Array<{ id: unknown }>>(`SELECT id FROM "${table}"`).catch(() => []);
    ids.push(...rows.map((r) => String(r.id)));
  }
  return {
    admin,
    ids: [...new Set(ids)],
    named: {
      userId: others[0]!.id,
      agentId,
      modelId: version.modelId,
      modelVersionId: version.id,
      deploymentId: deployment.id,
      profileId: profile.id,
      proposalId: proposal.id,
    },
  };
}
