// The Models pages' data as the router returns it (types only: the browser never imports server code).
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type Outputs = inferRouterOutputs<AppRouter>;
export type ModelDetailData = Outputs["models"]["get"];
export type ModelVersionData = ModelDetailData["versions"][number];
export type StoredAnalysisData = NonNullable<ModelVersionData["analysis"]>;
export type ModelDeploymentData = Outputs["models"]["deployments"][number];
export type ModelProfileData = Outputs["models"]["profiles"][number];
