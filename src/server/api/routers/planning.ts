import { liveSourceInputSchema as live } from "@/contracts/live-source";
import { createTrpcRouter, operatorProcedure } from "@/server/api/trpc";
import { listLiveDeployments, measuredStages, operatingPoint } from "@/server/services/planning-live-service";

// The planning pages plan for anyone signed in; a deployment's live numbers are the operators' (as its own page is).
export const planningRouter = createTrpcRouter({
  liveDeployments: operatorProcedure.query(() => listLiveDeployments()),
  measuredStages: operatorProcedure.input(live).query(({ input }) => measuredStages(input)),
  operatingPoint: operatorProcedure.input(live).query(({ input }) => operatingPoint(input)),
});
