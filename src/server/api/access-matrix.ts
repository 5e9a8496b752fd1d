// Who may call what: every tRPC procedure, by hand, with the roles allowed to call it ("public": anyone,
// signed in or not). src/server/api/access-matrix.int.test.ts calls every procedure of the router as
// anonymous and as each role and fails when the router and this table disagree, or when a procedure is
// missing here. A gate for role R lets R and admin through, so admin is in every list.
import type { Role } from "@/core/security/roles";

export type Allowed = "public" | readonly Role[];

const everyone = ["ml_engineer", "sre", "manager", "admin"] as const satisfies readonly Role[];
const ml = ["ml_engineer", "admin"] as const satisfies readonly Role[];
const sre = ["sre", "admin"] as const satisfies readonly Role[];
const admin = ["admin"] as const satisfies readonly Role[];
const operators = ["ml_engineer", "sre", "admin"] as const satisfies readonly Role[];

export const accessMatrix: Record<string, Allowed> = {
  // Load balancers use /api/health; the dashboard's status badge reads this one.
  "system.health": "public",

  "users.me": everyone,
  // Each user their own password (the service changes only the caller's, after checking the current one).
  "users.changePassword": everyone,

  // The Overview: everyone; each tile is left out unless the role may read its page's procedure (overview-service.ts).
  "overview.get": everyone,

  // In-app notifications (issue #14): each user their own (the service scopes to the caller).
  "notifications.list": everyone,
  "notifications.markRead": everyone,
  "users.list": admin,
  "users.create": admin,
  "users.setRole": admin,
  "users.setActive": admin,
  "users.resetPassword": admin,

  "audit.list": sre,
  "audit.filterOptions": sre,

  // Personal API tokens: each user their own, with a role never above theirs (the service checks).
  "apiTokens.list": everyone,
  "apiTokens.create": everyone,
  "apiTokens.revoke": everyone,

  "agentTokens.list": sre,
  "agentTokens.create": sre,
  "agentTokens.revoke": sre,

  "enrollmentTokens.list": sre,
  "enrollmentTokens.create": sre,
  "enrollmentTokens.revoke": sre,

  // The Agents page: SREs act; ML engineers read.
  "agents.list": operators,
  "agents.decommission": sre,

  "deployments.get": operators,
  "deployments.timeline": operators,
  "deployments.versions": operators,
  "deployments.deploy": sre,
  "deployments.undeploy": sre,
  "deployments.changeVersion": sre,

  // Load tests (issue #19): ML engineers and SREs run them against a deployment (audited; serving needs a confirmation).
  "loadTests.start": operators,
  "loadTests.get": operators,
  "loadTests.listForDeployment": operators,

  // Planning pages (issue #18): a deployment's measured stages and operating point, read as its own page is.
  "planning.liveDeployments": operators,
  "planning.measuredStages": operators,
  "planning.operatingPoint": operators,

  "profiles.get": operators,
  "profiles.listForModel": operators,
  "profiles.forDeployment": operators,
  "profiles.compatibility": operators,
  "profiles.estimate": operators,
  "profiles.probe": ["ml_engineer", "admin"],
  "profiles.probeResult": operators,
  "profiles.create": ["ml_engineer", "admin"],
  "profiles.cancel": operators,
  // The profile's creator, an sre or an admin (checked in the service).
  "profiles.delete": operators,

  // The approval loop: everyone reads; ML engineers and SREs propose; SREs decide and roll back.
  "proposals.list": everyone,
  "proposals.optimize": everyone,
  "proposals.optimizerContext": everyone,
  // Plan export (Triton, OVMS, KServe): whoever may read the plan.
  "proposals.exportPlan": everyone,
  "proposals.create": operators,
  "proposals.cancelTrial": operators,
  "proposals.approve": sre,
  "proposals.reject": sre,
  "proposals.rollback": sre,

  // The estimator's proposals (issue #17): operators read the deployment's estimator; SREs set its approval policy.
  "estimator.view": operators,
  "estimator.setPolicy": sre,

  // Alerts: everyone reads them (the navigation shows the count); SREs acknowledge, resolve and set the webhook.
  "alerts.list": everyone,
  "alerts.count": everyone,
  "alerts.acknowledge": sre,
  "alerts.resolve": sre,
  "alerts.webhook": sre,
  "alerts.setWebhook": sre,
  "alerts.deliveries": sre,

  // The model registry: everyone reads it; ML engineers change it (uploads: POST /api/models/upload, same rule).
  "models.list": everyone,
  "models.get": everyone,
  "models.versions": everyone,
  "models.deployments": everyone,
  "models.profiles": everyone,
  "models.zooCatalog": everyone,
  "models.job": everyone,
  "models.setSlo": ml,
  "models.delete": ml,
  "models.registerZoo": ml,
  "models.importUrl": ml,

  // The batching page (issue #20): everyone reads its context and sweeps; ML engineers and SREs propose a sweep
  // (approved through proposals.approve); SREs stop a running one.
  "batching.context": everyone,
  "batching.sweeps": everyone,
  "batching.proposeSweep": operators,
  "batching.cancelSweep": sre,

  // Cost reports (issue #21): managers and SREs read them; admins set hardware prices (audited).
  "cost.report": ["manager", "sre", "admin"],
  "cost.prices": ["manager", "sre", "admin"],
  "cost.setPrice": admin,
  "cost.removePrice": admin,
};
