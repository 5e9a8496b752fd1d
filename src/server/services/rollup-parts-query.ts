// A minute's latency histograms are its metrics_rollup_part rows (one per metrics message), read next to the
// minute's metrics_rollup counters and merged by the caller.
import type { PrismaClient } from "@/generated/prisma/client";
import { rollupPartColumn, type StageHistograms } from "@/contracts/deployment-columns";

/** The key a minute's parts are found under. */
export const rollupPartsKey = (deploymentId: string, minute: Date) => `${deploymentId} ${minute.getTime()}`;

/** The parts of the deployments' minutes since `since` (and up to `until`), in arrival order, by rollupPartsKey. */
export async function rollupPartsByMinute(
  prisma: PrismaClient,
  deploymentIds: readonly string[],
  since: Date,
  until?: Date,
): Promise<Map<string, StageHistograms[]>> {
  const rows = await prisma.metricsRollupPart.findMany({
    where: { deploymentId: { in: [...deploymentIds] }, minute: { gte: since, ...(until ? { lte: until } : {}) } },
    select: { deploymentId: true, minute: true, encoded: true },
    orderBy: [{ deploymentId: "asc" }, { minute: "asc" }, { id: "asc" }],
  });
  const out = new Map<string, StageHistograms[]>();
  for (const row of rows) {
    const key = rollupPartsKey(row.deploymentId, row.minute);
    const parts = out.get(key) ?? [];
    parts.push(rollupPartColumn.read(row.encoded));
    out.set(key, parts);
  }
  return out;
}
