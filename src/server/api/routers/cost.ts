import { z } from "zod";
import { costReportInputSchema } from "@/contracts/cost-report";
import { adminProcedure, costReaderProcedure, createTrpcRouter } from "@/server/api/trpc";
import { getCostReport, listPrices, removePrice, setPrice } from "@/server/services/cost-service";

const hardwareClass = z.string().trim().min(1, "must not be empty").max(500);

export const costRouter = createTrpcRouter({
  // Managers and SREs read the report and the prices; only admins change prices (audited).
  report: costReaderProcedure.input(costReportInputSchema).query(({ input }) => getCostReport(input)),
  prices: costReaderProcedure.query(() => listPrices()),
  setPrice: adminProcedure
    .input(
      z.object({
        hardwareClass,
        hourlyUsd: z.number().positive("must be a positive number of dollars per hour").max(1e6),
        note: z.string().max(500).optional(),
      }),
    )
    .mutation(({ ctx, input }) => setPrice(ctx.caller, input)),
  removePrice: adminProcedure
    .input(z.object({ hardwareClass }))
    .mutation(({ ctx, input }) => removePrice(ctx.caller, input)),
});
