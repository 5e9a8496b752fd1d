"use client";
import Link from "next/link";
import { useState } from "react";

export function UserMenu({ name, email, role }: { name: string; email: string; role: string }) {
  const [busy, setBusy] = useState(false);
  async function signOut() {
    setBusy(true);
    await fetch("/api/auth/sign-out", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    }).catch(() => undefined);
    // A full load, not router.push: it drops every query the signed-out user had cached, and the layout re-renders.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- see above
    window.location.assign("/sign-in");
  }
  return (
    <div className="user-menu" data-testid="user-menu">
      <div className="who">{name}</div>
      <div className="email">{email}</div>
      <span className="role" data-testid="user-role">
        {role}
      </span>
      <Link href="/account" className="account-link" data-testid="account-link">
        Your account &amp; API tokens
      </Link>
      <button className="btn" type="button" onClick={signOut} disabled={busy}>
        {busy ? "Signing out…" : "Sign out"}
      </button>
    </div>
  );
}
