// Plan export for the Optimizer page and the CLI: finds the plan (a proposal's, a deployment's running generation,
// or what the optimizer would propose now) and its model's name, then writes it in each asked-for format
// (src/core/export/plan-export.ts). A strict export the format cannot express is a PRECONDITION_FAILED naming the losses.
import type { PrismaClient } from "@/generated/prisma/client";
import type { PlanExportInput } from "@/contracts/plan-export";
import { servingPlanSchema, type ServingPlan } from "@/contracts/serving-plan";
import { exportFormats, exportPlan, PlanNotExpressibleError, type PlanExport } from "@/core/export/plan-export";
import { db } from "@/server/db/client";
import { DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { optimizeForDeployment } from "./optimizer-service";

export interface PlanExportResult {
  modelName: string;
  deploymentId: string;
  /** Where the plan came from, in words ("proposal … (applied)", "deployment … generation 3", "optimizer …"). */
  sourceLabel: string;
  exports: PlanExport[];
}

async function deploymentModel(deploymentId: string, prisma: PrismaClient) {
  const deployment = await prisma.deployment.findUnique({
    where: { id: deploymentId },
    include: { modelVersion: { include: { model: true } } },
  });
  if (!deployment) throw notFound("deployment", deploymentId);
  return deployment;
}

async function findPlan(
  input: PlanExportInput,
  prisma: PrismaClient,
): Promise<{ plan: ServingPlan; deploymentId: string; sourceLabel: string }> {
  const source = input.source;
  if (source.kind === "proposal") {
    const proposal = await prisma.proposal.findUnique({ where: { id: source.proposalId } });
    if (!proposal) throw notFound("proposal", source.proposalId);
    // An estimator proposal that could not be planned (no profile) stores no plan.
    const plan = servingPlanSchema.safeParse(proposal.plan);
    if (!plan.success)
      throw new DomainError(
        "NOT_FOUND",
        `proposal ${proposal.id} has no serving plan to export${proposal.blockedReason ? `: ${proposal.blockedReason}` : ""}`,
      );
    return {
      plan: plan.data,
      deploymentId: proposal.deploymentId,
      sourceLabel: `proposal ${proposal.id} (${proposal.state})`,
    };
  }
  if (source.kind === "deployment") {
    const deployment = await deploymentModel(source.deploymentId, prisma);
    const generation = await prisma.deploymentGeneration.findUnique({
      where: { deploymentId_generation: { deploymentId: deployment.id, generation: deployment.generation } },
    });
    const plan = servingPlanSchema.safeParse(generation?.plan);
    if (!plan.success)
      throw new DomainError(
        "NOT_FOUND",
        `deployment ${deployment.id} has no serving plan at generation ${deployment.generation}`,
      );
    return {
      plan: plan.data,
      deploymentId: deployment.id,
      sourceLabel: `deployment ${deployment.id} generation ${deployment.generation}`,
    };
  }
  const optimized = await optimizeForDeployment(source, prisma);
  if (optimized.kind === "infeasible") throw invalidInput(`no plan: ${optimized.reason}`, { field: "batchSize" });
  return {
    plan: optimized.plan,
    deploymentId: source.deploymentId,
    sourceLabel: `optimizer on profile ${source.profileId}, B = ${source.batchSize}`,
  };
}

export async function exportServingPlan(
  input: PlanExportInput,
  prisma: PrismaClient = db(),
): Promise<PlanExportResult> {
  const { plan, deploymentId, sourceLabel } = await findPlan(input, prisma);
  const deployment = await deploymentModel(deploymentId, prisma);
  const modelName = deployment.modelVersion.model.name;
  const formats = input.format ? [input.format] : exportFormats;
  try {
    const exports = formats.map((format) =>
      exportPlan({ modelName, plan, storageUri: input.storageUri }, format, {
        strict: input.strict,
        allow: input.allow,
      }),
    );
    return { modelName, deploymentId, sourceLabel, exports };
  } catch (error) {
    if (error instanceof PlanNotExpressibleError)
      throw new DomainError("PRECONDITION_FAILED", error.message, {
        format: error.format,
        differences: error.differences,
      });
    throw error;
  }
}
