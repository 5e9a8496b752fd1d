import { describe, expect, it } from "vitest";
import { linksFor } from "./nav-links";

describe("navigation per role", () => {
  it("shows each role only the pages it may open", () => {
    const labels = (role: Parameters<typeof linksFor>[0]) => linksFor(role).map((l) => l.label);
    expect(labels("admin")).toEqual([
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Agents",
      "Optimizer",
      "Approvals",
      "Cost",
      "Alerts",
      "Audit",
      "Users",
    ]);
    expect(labels("sre")).toEqual([
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Agents",
      "Optimizer",
      "Approvals",
      "Cost",
      "Alerts",
      "Audit",
    ]);
    expect(labels("ml_engineer")).toEqual([
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Agents",
      "Optimizer",
      "Approvals",
      "Alerts",
    ]);
    expect(labels("manager")).toEqual([
      "Overview",
      "Models",
      "Planning",
      "Benchmarks",
      "Optimizer",
      "Approvals",
      "Cost",
      "Alerts",
    ]);
  });
});
