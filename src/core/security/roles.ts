// The four roles and the one rule between them: a gate for role R lets R and admin through. Pure data: the control
// plane gates on it, the dashboard labels and hides with it.
export const roles = ["ml_engineer", "sre", "manager", "admin"] as const;
export type Role = (typeof roles)[number];

export const roleLabels: Record<Role, string> = {
  ml_engineer: "ML engineer",
  sre: "SRE",
  manager: "Manager",
  admin: "Admin",
};

/** Whether a user with `role` passes the gate for `required` (admin passes every gate). */
export function roleSatisfies(role: Role, required: Role): boolean {
  return role === required || role === "admin";
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (roles as readonly string[]).includes(value);
}
