// The dashboard's pages and the role each needs (null: every signed-in user). The layout shows each user
// only the links their role may open; the pages check again on the server. Only pages that exist.
import { roleSatisfies, type Role } from "@/core/security/roles";

export interface NavLink {
  href: string;
  label: string;
  /** Roles that may open it (admin always may); null: every signed-in user. */
  roles: readonly Role[] | null;
}

export const navLinks: readonly NavLink[] = [
  { href: "/", label: "Overview", roles: null },
  { href: "/models", label: "Models", roles: null },
  { href: "/planning", label: "Planning", roles: null },
  { href: "/benchmarks", label: "Benchmarks", roles: null },
  { href: "/agents", label: "Agents", roles: ["sre", "ml_engineer"] },
  { href: "/optimizer", label: "Optimizer", roles: ["ml_engineer", "sre", "manager"] },
  { href: "/approvals", label: "Approvals", roles: null },
  { href: "/cost", label: "Cost", roles: ["manager", "sre"] },
  { href: "/alerts", label: "Alerts", roles: null },
  { href: "/audit", label: "Audit", roles: ["sre"] },
  { href: "/admin", label: "Users", roles: ["admin"] },
];

export function linksFor(role: Role): Array<{ href: string; label: string }> {
  return navLinks
    .filter((l) => l.roles === null || l.roles.some((r) => roleSatisfies(role, r)))
    .map(({ href, label }) => ({ href, label }));
}
