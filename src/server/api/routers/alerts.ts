import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter, sreProcedure } from "@/server/api/trpc";
import { getAlertWebhook, listAlertDeliveries, setAlertWebhook } from "@/server/services/alert-webhook-service";
import { acknowledgeAlert, countAlerts, listAlerts, resolveAlert } from "@/server/services/alerts-service";

const id = z.string().min(1).max(100);
const comment = z.string().max(1000).optional();

export const alertsRouter = createTrpcRouter({
  // Everyone signed in reads alerts (and the navigation shows the count); SREs act on them.
  list: authenticatedProcedure
    .input(
      z
        .object({
          filter: z.enum(["active", "resolved", "all"]).optional(),
          limit: z.number().int().min(1).max(500).optional(),
        })
        .optional(),
    )
    .query(({ input }) => listAlerts(input ?? {})),
  count: authenticatedProcedure.query(() => countAlerts()),
  acknowledge: sreProcedure
    .input(z.object({ id, comment }))
    .mutation(({ ctx, input }) => acknowledgeAlert(ctx.caller, input)),
  resolve: sreProcedure.input(z.object({ id, comment })).mutation(({ ctx, input }) => resolveAlert(ctx.caller, input)),
  // The webhook may carry a secret in its URL: SREs only.
  webhook: sreProcedure.query(() => getAlertWebhook()),
  setWebhook: sreProcedure
    .input(
      z.object({
        url: z.string().trim().max(2000).nullable(),
        enabled: z.boolean(),
        minSeverity: z.enum(["warning", "critical"]),
      }),
    )
    .mutation(({ ctx, input }) => setAlertWebhook(ctx.caller, input)),
  deliveries: sreProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).optional() }).optional())
    .query(({ input }) => listAlertDeliveries(input ?? {})),
});
