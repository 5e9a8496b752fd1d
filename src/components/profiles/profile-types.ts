// The profile views' data as the router returns it (types only: the browser never imports server code).
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

type Outputs = inferRouterOutputs<AppRouter>;
export type ProfileData = Outputs["profiles"]["get"];
export type ProfileListItem = Outputs["profiles"]["listForModel"][number];
export type DeploymentProfilesData = Outputs["profiles"]["forDeployment"];
