import { z } from "zod";
import { createTrpcRouter, sreProcedure } from "@/server/api/trpc";
import { auditFilterOptions, listAuditEvents } from "@/server/services/audit-service";
import { storableDate } from "@/server/api/storable-input";

const optionalText = z.string().trim().max(200).optional();
const MAX_BIGINT = 2n ** 63n - 1n;

export const auditRouter = createTrpcRouter({
  list: sreProcedure
    .input(
      z
        .object({
          actor: optionalText,
          action: optionalText,
          targetType: optionalText,
          target: optionalText,
          from: storableDate().optional(),
          to: storableDate().optional(),
          // Ids are bigints: 19 digits can still exceed 2^63 − 1, which the database refuses (fuzzer, issue #23).
          before: z
            .string()
            .regex(/^\d{1,19}$/, "must be an audit event id")
            .refine((v) => BigInt(v) <= MAX_BIGINT, "must be an audit event id")
            .optional(),
          limit: z.number().int().min(1).max(200).optional(),
        })
        .optional(),
    )
    .query(({ input }) => listAuditEvents(input ?? {})),
  filterOptions: sreProcedure.query(() => auditFilterOptions()),
});
