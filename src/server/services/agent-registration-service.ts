// Registration: an agent reports who and what it is. An agent token binds to the first agent that registers with it
// (a second host presenting it is refused); an enrollment token creates a new agent and returns its own token once.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { toJsonColumn } from "@/server/db/json-column";
import { AGENT_PROTOCOL_VERSION, type RegisterRequest, type RegisterResponse } from "@/contracts/agent-protocol";
import { recordAudit } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { conflict, DomainError } from "@/server/errors/domain-errors";
import { generateAgentToken, type AgentIdentity } from "./agent-tokens-service";
import { consumeEnrollmentToken } from "./enrollment-tokens-service";
import { onAgentRestarted } from "./agent-restart-hooks";

function agentData(body: RegisterRequest) {
  return {
    hostName: body.hostName, agentVersion: body.agentVersion, protocolVersion: body.protocolVersion, bootId: body.bootId,
    topology: toJsonColumn(body.topology), allowedCpus: body.allowedCpus, cpuModel: body.cpuModel,
    memoryBytes: BigInt(body.memoryBytes), ortVersion: body.ortVersion, inferenceUrl: body.inferenceUrl ?? null,
    lastHeartbeatAt: new Date(), decommissionedAt: null,
  };
}

function checkProtocol(body: RegisterRequest): void {
  if (body.protocolVersion !== AGENT_PROTOCOL_VERSION) {
    throw new DomainError("INVALID_INPUT", `agent protocol ${body.protocolVersion} is not supported by this control plane (it speaks ${AGENT_PROTOCOL_VERSION}); upgrade the agent or the control plane so they match`);
  }
}

const timing = () => ({ heartbeatIntervalMs: env().HEARTBEAT_INTERVAL_MS, longPollHoldMs: env().LONG_POLL_HOLD_MS });

/** With an agent token (already verified by the route). */
export async function registerWithAgentToken(identity: AgentIdentity, body: RegisterRequest, requestId: string, prisma: PrismaClient = db()): Promise<RegisterResponse> {
  checkProtocol(body);
  const restartedBootId = await prisma.$transaction(async (tx) => {
    // Lock the token row: two first registrations racing with one token bind only one agent.
    await tx.$queryRaw`SELECT id FROM agent_token WHERE id = ${identity.tokenId} FOR UPDATE`;
    const token = await tx.agentToken.findUniqueOrThrow({ where: { id: identity.tokenId } });
    if (token.agentId) {
      const agent = await tx.agent.findUniqueOrThrow({ where: { id: token.agentId } });
      if (agent.decommissionedAt) throw new DomainError("FORBIDDEN", `agent ${agent.hostName} was decommissioned; create a new token to attach this host again`);
      if (agent.hostName !== body.hostName) {
        throw conflict(`this agent token is bound to host ${agent.hostName}; host ${body.hostName} needs its own token (or an enrollment token)`);
      }
      await tx.agent.update({ where: { id: agent.id }, data: agentData(body) });
      return { agentId: agent.id, previousBootId: agent.bootId };
    }
    const agent = await tx.agent.create({ data: { id: randomUUID(), ...agentData(body) } });
    await tx.agentToken.update({ where: { id: token.id }, data: { agentId: agent.id } });
    await recordAudit(tx, {
      actor: { type: "agent", id: agent.id, label: body.hostName }, action: "agent.register",
      target: { type: "agent", id: agent.id, label: body.hostName }, after: { hostName: body.hostName, agentVersion: body.agentVersion, token: token.name }, requestId,
    });
    return { agentId: agent.id, previousBootId: null };
  });
  if (restartedBootId.previousBootId && restartedBootId.previousBootId !== body.bootId) await onAgentRestarted(restartedBootId.agentId);
  return { agentId: restartedBootId.agentId, ...timing() };
}

/** With an enrollment token: a new agent and its own token (returned this once). */
export async function registerWithEnrollmentToken(enrollmentToken: string, body: RegisterRequest, requestId: string, prisma: PrismaClient = db()): Promise<RegisterResponse> {
  checkProtocol(body);
  const { token, tokenHash, prefix } = generateAgentToken();
  const agentId = await prisma.$transaction(async (tx) => {
    const enrollment = await consumeEnrollmentToken(tx, enrollmentToken);
    const agent = await tx.agent.create({ data: { id: randomUUID(), ...agentData(body) } });
    await tx.agentToken.create({ data: { id: randomUUID(), name: `${body.hostName} (enrolled via ${enrollment.name})`, tokenHash, prefix, agentId: agent.id } });
    await recordAudit(tx, {
      actor: { type: "agent", id: agent.id, label: body.hostName }, action: "agent.enroll",
      target: { type: "agent", id: agent.id, label: body.hostName }, after: { hostName: body.hostName, enrollmentToken: enrollment.name }, requestId,
    });
    return agent.id;
  }, { isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted });
  return { agentId, agentToken: token, ...timing() };
}
