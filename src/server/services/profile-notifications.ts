// The notification a profile's creator gets when its job ends (complete, partial, failed, or cancelled by someone
// else). Written inside the transaction that ends the job, so it exists exactly when the outcome does.
import type { Prisma } from "@/generated/prisma/client";
import { notify } from "./notifications-service";

export interface ProfileOutcome {
  status: "complete" | "partial" | "failed" | "cancelled";
  measured: number | null;
  total: number | null;
  reason: string | null;
}

const verbs: Record<ProfileOutcome["status"], string> = {
  complete: "finished",
  partial: "ended partial",
  failed: "failed",
  cancelled: "was cancelled",
};

export async function notifyProfileOutcome(
  tx: Prisma.TransactionClient,
  profileId: string,
  outcome: ProfileOutcome,
): Promise<void> {
  const profile = await tx.profile.findUnique({ where: { id: profileId } });
  if (!profile?.createdById) return;
  const version = await tx.modelVersion.findUniqueOrThrow({
    where: { id: profile.modelVersionId },
    include: { model: true },
  });
  const agent = await tx.agent.findUniqueOrThrow({ where: { id: profile.agentId }, select: { hostName: true } });
  const cells =
    outcome.measured !== null
      ? `${outcome.measured}${outcome.total !== null ? ` of ${outcome.total}` : ""} cells measured`
      : null;
  await notify(tx, {
    userId: profile.createdById,
    kind: `profile.${outcome.status}`,
    title: `Profile of ${version.model.name} v${version.number} on ${agent.hostName} ${verbs[outcome.status]}`,
    body: [cells, outcome.reason].filter(Boolean).join("; ") || undefined,
    link: `/profiles/${profile.id}`,
    target: { type: "profile", id: profile.id },
  });
}
