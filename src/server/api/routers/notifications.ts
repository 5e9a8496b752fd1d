import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter } from "@/server/api/trpc";
import {
  listNotifications,
  markNotificationsRead,
  NOTIFICATION_LIST_MAX,
} from "@/server/services/notifications-service";

// Every signed-in user reads and marks their own notifications (the service scopes every query to the caller).
// Marking read is not audited: it changes nothing but the reader's own inbox.
export const notificationsRouter = createTrpcRouter({
  list: authenticatedProcedure
    .input(z.object({ limit: z.number().int().min(1).max(NOTIFICATION_LIST_MAX).optional() }).optional())
    .query(({ ctx, input }) => listNotifications(ctx.caller, input ?? {})),
  markRead: authenticatedProcedure
    .input(
      z
        .object({
          ids: z.array(z.string().min(1).max(100)).max(NOTIFICATION_LIST_MAX).optional(),
          all: z.boolean().optional(),
        })
        .refine((v) => v.all === true || (v.ids?.length ?? 0) > 0, "give the ids to mark read, or all: true"),
    )
    .mutation(({ ctx, input }) => markNotificationsRead(ctx.caller, input)),
});
