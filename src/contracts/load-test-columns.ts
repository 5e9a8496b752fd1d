// The JSON columns of load tests.
import { z } from "zod";
import { loadgenReportSchema, loadTestSpecSchema } from "./agent-jobs";
import { jsonColumn } from "./json-column";
import { servingPlanSchema } from "./serving-plan";

/** load_test.spec: what the user asked for. */
export const loadTestSpecColumn = jsonColumn("load_test.spec", loadTestSpecSchema);

/** load_test.planAtStart: the generation the agent served when the test started (null before it starts). */
export const loadTestPlanAtStartColumn = jsonColumn(
  "load_test.planAtStart",
  z.object({ label: z.string(), plan: servingPlanSchema }).nullable(),
);

/** load_test.report: the load generator's JSON report as the agent uploaded it (null until it does). */
export const loadTestReportColumn = jsonColumn("load_test.report", loadgenReportSchema.nullable());
