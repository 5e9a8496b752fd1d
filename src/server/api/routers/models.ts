import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter, mlEngineerProcedure } from "@/server/api/trpc";
import { triggerTask } from "@/server/jobs/job-dispatch";
import { getJob } from "@/server/services/jobs-service";
import { ARTIFACT_GC_QUEUE } from "@/server/services/models-artifact-gc-service";
import {
  deleteModel,
  getModel,
  listDeploymentsForModel,
  listModels,
  listProfilesForModel,
  listVersions,
  setModelSlo,
} from "@/server/services/models-service";
import { requestZooRegistration, zooCatalog } from "@/server/services/models-zoo-service";
import { importModelFromUrl } from "@/server/services/models-import-service";

const id = z.string().min(1).max(100);
const ms = (what: string) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .positive(`${what} must be positive`)
    .max(3_600_000, `${what} must be at most one hour`);

// Every signed-in role reads the registry (the planners, the validator and the cost report all start from a
// model); ML engineers (and admins) change it. Uploads are a streamed route: /api/models/upload; an import by URL
// is a mutation (the server streams the download, the browser sends only the URL).
export const modelsRouter = createTrpcRouter({
  list: authenticatedProcedure
    .input(z.object({ search: z.string().max(200).optional() }).optional())
    .query(({ input }) => listModels({ search: input?.search })),
  get: authenticatedProcedure.input(z.object({ id })).query(({ input }) => getModel(input.id)),
  versions: authenticatedProcedure.input(z.object({ modelId: id })).query(({ input }) => listVersions(input.modelId)),
  deployments: authenticatedProcedure
    .input(z.object({ modelId: id }))
    .query(({ input }) => listDeploymentsForModel(input.modelId)),
  profiles: authenticatedProcedure
    .input(z.object({ modelId: id }))
    .query(({ input }) => listProfilesForModel(input.modelId)),
  zooCatalog: authenticatedProcedure.query(() => zooCatalog()),
  job: authenticatedProcedure.input(z.object({ id })).query(({ input }) => getJob(input.id)),

  setSlo: mlEngineerProcedure
    .input(
      z
        .object({
          modelId: id,
          deadlineMs: ms("the deadline").nullable(),
          quantile: z
            .number({ error: "the quantile must be a number" })
            .gt(0, "the quantile must be above 0")
            .lt(1, "the quantile must be below 1 (e.g. 0.99)")
            .nullable(),
          ttftMs: ms("time to first token").nullable().default(null),
          tpotMs: ms("time per output token").nullable().default(null),
        })
        .superRefine((v, ctx) => {
          // A deadline needs its quantile and the other way round; TTFT/TPOT only beside them.
          if (v.deadlineMs === null && v.quantile !== null)
            ctx.addIssue({ code: "custom", path: ["deadlineMs"], message: "a quantile needs a deadline" });
          if (v.deadlineMs !== null && v.quantile === null)
            ctx.addIssue({ code: "custom", path: ["quantile"], message: "a deadline needs a quantile (e.g. 0.99)" });
          if (v.deadlineMs === null && (v.ttftMs !== null || v.tpotMs !== null))
            ctx.addIssue({ code: "custom", path: ["deadlineMs"], message: "set the deadline before TTFT/TPOT" });
        }),
    )
    .mutation(({ ctx, input }) =>
      setModelSlo(ctx.caller, {
        modelId: input.modelId,
        slo:
          input.deadlineMs !== null && input.quantile !== null
            ? { deadlineMs: input.deadlineMs, quantile: input.quantile, ttftMs: input.ttftMs, tpotMs: input.tpotMs }
            : null,
      }),
    ),
  delete: mlEngineerProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => {
    const result = await deleteModel(ctx.caller, input);
    // The deleted versions' artifacts are GC's once its grace period has passed; a run now removes older leftovers.
    await triggerTask(ARTIFACT_GC_QUEUE).catch(() => undefined);
    return result;
  }),
  registerZoo: mlEngineerProcedure
    .input(z.object({ zooName: z.string().min(1).max(100), seed: z.number().int().min(0).max(0xffffffff).optional() }))
    .mutation(({ ctx, input }) => requestZooRegistration(ctx.caller, input)),
  importUrl: mlEngineerProcedure
    .input(
      z.object({
        url: z.string().trim().min(1, "give the model's URL").max(2000, "the URL is longer than 2000 characters"),
        name: z.string().max(200),
        description: z.string().max(2000).optional(),
        dims: z.record(z.string().max(200), z.number().int().positive()).optional(),
        batchAxes: z.record(z.string().max(200), z.number().int().min(0).nullable()).optional(),
      }),
    )
    .mutation(({ ctx, input }) => importModelFromUrl(ctx.caller, input)),
});
