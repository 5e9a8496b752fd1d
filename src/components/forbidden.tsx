import Link from "next/link";
import { roleLabels, type Role } from "@/core/security/roles";

// What a page renders for a role that may not open it: no data of the page is loaded or sent.
export function Forbidden({ role, current }: { role: Role; current: Role }) {
  return (
    <div className="forbidden" data-testid="forbidden">
      <div className="code">403 · FORBIDDEN</div>
      <h1>You need the {role} role</h1>
      <p className="subtitle">
        This page is for the {roleLabels[role]} role{role === "admin" ? "" : " (and admins)"}. You are signed in as{" "}
        {roleLabels[current]}. Ask an admin if you need access.
      </p>
      <Link href="/">Back to the overview</Link>
    </div>
  );
}
