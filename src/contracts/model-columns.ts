// The JSON columns of model versions and their profiles. (model_version.analysis has its reader beside the shape
// it stores: src/server/services/models-analysis.ts readStoredAnalysis.)
import { z } from "zod";
import { stoppingRuleSchema } from "./agent-jobs";
import { jsonColumn } from "./json-column";

/** Sizes of a model's dynamic non-batch dimensions by name (e.g. {"sequence": 128}). */
const dimensionSizes = z.record(z.string(), z.number().int().min(1));

/** model_version.servingDims: the sizes the version is served and profiled with unless a request says others. */
export const servingDimsColumn = jsonColumn("model_version.servingDims", dimensionSizes);

/** profile.dimensions: the sizes the profile was measured with. */
export const profileDimensionsColumn = jsonColumn("profile.dimensions", dimensionSizes);

/** profile.stoppingRule: when each cell's measurement stopped (the rule its job was claimed with). */
export const profileStoppingRuleColumn = jsonColumn("profile.stoppingRule", stoppingRuleSchema);
