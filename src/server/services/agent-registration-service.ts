// Registration: an agent reports who and what it is. An agent token binds to the first agent that registers with it
// (a second host presenting it is refused); an enrollment token creates a new agent and returns its own token once,
// refused while an agent of the same host name is online, taking over an offline one of that name.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { AGENT_PROTOCOL_VERSION, type RegisterRequest, type RegisterResponse } from "@/contracts/agent-protocol";
import { recordAudit } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { conflict, DomainError } from "@/server/errors/domain-errors";
import { generateAgentToken, notifyTokenRevoked, type AgentIdentity } from "./agent-tokens-service";
import { consumeEnrollmentToken } from "./enrollment-tokens-service";
import { onAgentRestarted } from "./agent-restart-hooks";
import { agentTopologyColumn } from "@/contracts/host-topology";

function agentData(body: RegisterRequest) {
  return {
    hostName: body.hostName,
    agentVersion: body.agentVersion,
    protocolVersion: body.protocolVersion,
    bootId: body.bootId,
    topology: writeJsonColumn(agentTopologyColumn, body.topology),
    allowedCpus: body.allowedCpus,
    cpuModel: body.cpuModel,
    memoryBytes: BigInt(body.memoryBytes),
    ortVersion: body.ortVersion,
    inferenceUrl: body.inferenceUrl ?? null,
    lastHeartbeatAt: new Date(),
    decommissionedAt: null,
  };
}

function checkProtocol(body: RegisterRequest): void {
  if (body.protocolVersion !== AGENT_PROTOCOL_VERSION) {
    throw new DomainError(
      "INVALID_INPUT",
      `agent protocol ${body.protocolVersion} is not supported by this control plane (it speaks ${AGENT_PROTOCOL_VERSION}); upgrade the agent or the control plane so they match`,
    );
  }
}

const timing = () => ({
  heartbeatIntervalMs: env().HEARTBEAT_INTERVAL_MS,
  metricsIntervalMs: env().METRICS_INTERVAL_MS ?? 3 * env().HEARTBEAT_INTERVAL_MS,
  longPollHoldMs: env().LONG_POLL_HOLD_MS,
});

/** With an agent token (already verified by the route). */
export async function registerWithAgentToken(
  identity: AgentIdentity,
  body: RegisterRequest,
  requestId: string,
  prisma: PrismaClient = db(),
): Promise<RegisterResponse> {
  checkProtocol(body);
  const restartedBootId = await prisma.$transaction(async (tx) => {
    // Lock the token row: two first registrations racing with one token bind only one agent.
    await tx.$queryRaw`SELECT id FROM agent_token WHERE id = ${identity.tokenId} FOR UPDATE`;
    const token = await tx.agentToken.findUniqueOrThrow({ where: { id: identity.tokenId } });
    if (token.agentId) {
      const agent = await tx.agent.findUniqueOrThrow({ where: { id: token.agentId } });
      if (agent.decommissionedAt)
        throw new DomainError(
          "FORBIDDEN",
          `agent ${agent.hostName} was decommissioned; create a new token to attach this host again`,
        );
      if (agent.hostName !== body.hostName) {
        throw conflict(
          `this agent token is bound to host ${agent.hostName}; host ${body.hostName} needs its own token (or an enrollment token)`,
        );
      }
      await tx.agent.update({ where: { id: agent.id }, data: agentData(body) });
      return { agentId: agent.id, previousBootId: agent.bootId };
    }
    const agent = await tx.agent.create({ data: { id: randomUUID(), ...agentData(body) } });
    await tx.agentToken.update({ where: { id: token.id }, data: { agentId: agent.id } });
    await recordAudit(tx, {
      actor: { type: "agent", id: agent.id, label: body.hostName },
      action: "agent.register",
      target: { type: "agent", id: agent.id, label: body.hostName },
      after: { hostName: body.hostName, agentVersion: body.agentVersion, token: token.name },
      requestId,
    });
    return { agentId: agent.id, previousBootId: null };
  });
  if (restartedBootId.previousBootId && restartedBootId.previousBootId !== body.bootId)
    await onAgentRestarted(restartedBootId.agentId);
  return { agentId: restartedBootId.agentId, ...timing() };
}

/**
 * The agent an enrollment under `hostName` replaces, if any, inside `tx` (which holds the host name's lock). An agent
 * of that name that is online refuses the enrollment: one enrollment token must not let a second host pose as a live
 * one. An offline one (a re-imaged node whose state, token included, is gone) is taken over: same agent, same
 * deployments, a new token, the old tokens revoked.
 */
async function agentToReplace(
  tx: Prisma.TransactionClient,
  hostName: string,
): Promise<{ id: string; bootId: string } | null> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`packrat:agent-host:${hostName}`}))`;
  const namesakes = await tx.agent.findMany({
    where: { hostName, decommissionedAt: null },
    orderBy: { lastHeartbeatAt: { sort: "desc", nulls: "last" } },
  });
  const newest = namesakes[0];
  if (!newest) return null;
  const ageMs = newest.lastHeartbeatAt ? Date.now() - newest.lastHeartbeatAt.getTime() : null;
  if (ageMs !== null && ageMs < env().AGENT_OFFLINE_AFTER_MS) {
    throw conflict(
      `an agent named ${hostName} is online (last heartbeat ${Math.round(ageMs / 1000)} s ago): stop it or decommission it on the Agents page before enrolling another host under that name, or give this host its own name (AGENT_HOST_NAME)`,
    );
  }
  return { id: newest.id, bootId: newest.bootId };
}

/** With an enrollment token: a new agent (or the offline one of the same host name, taken over) and its own token, returned this once. */
export async function registerWithEnrollmentToken(
  enrollmentToken: string,
  body: RegisterRequest,
  requestId: string,
  prisma: PrismaClient = db(),
): Promise<RegisterResponse> {
  checkProtocol(body);
  const { token, tokenHash, prefix } = generateAgentToken();
  const enrolled = await prisma.$transaction(
    async (tx) => {
      // The token first: without a valid one, nobody learns whether a host name is online.
      const enrollment = await consumeEnrollmentToken(tx, enrollmentToken);
      const replaced = await agentToReplace(tx, body.hostName);
      const agentId = replaced?.id ?? randomUUID();
      if (replaced) {
        // Revoked as every revocation is: NOTIFYd, so a replica ends the old token's long-polls and forgets it.
        const revoked = await tx.agentToken.updateManyAndReturn({
          where: { agentId, revokedAt: null },
          data: { revokedAt: new Date() },
          select: { id: true },
        });
        await notifyTokenRevoked(
          tx,
          revoked.map((t) => t.id),
        );
        await tx.agent.update({ where: { id: agentId }, data: agentData(body) });
      } else {
        await tx.agent.create({ data: { id: agentId, ...agentData(body) } });
      }
      await tx.agentToken.create({
        data: {
          id: randomUUID(),
          name: `${body.hostName} (enrolled via ${enrollment.name})`,
          tokenHash,
          prefix,
          agentId,
        },
      });
      await recordAudit(tx, {
        actor: { type: "agent", id: agentId, label: body.hostName },
        action: "agent.enroll",
        target: { type: "agent", id: agentId, label: body.hostName },
        after: { hostName: body.hostName, enrollmentToken: enrollment.name, replacedOfflineAgent: replaced !== null },
        requestId,
      });
      return { agentId, previousBootId: replaced?.bootId ?? null };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
  );
  // The replaced agent's running jobs go back to the queue, as after any restart.
  if (enrolled.previousBootId && enrolled.previousBootId !== body.bootId) await onAgentRestarted(enrolled.agentId);
  return { agentId: enrolled.agentId, agentToken: token, ...timing() };
}

/** Who registers: an agent token (verified by the route) or an enrollment token (checked here, when it is consumed). */
export type RegisteringCaller = { kind: "agent"; agent: AgentIdentity } | { kind: "enrollment"; token: string };

/** POST /register, either way. */
export function registerAgent(
  caller: RegisteringCaller,
  body: RegisterRequest,
  requestId: string,
): Promise<RegisterResponse> {
  return caller.kind === "enrollment"
    ? registerWithEnrollmentToken(caller.token, body, requestId)
    : registerWithAgentToken(caller.agent, body, requestId);
}
