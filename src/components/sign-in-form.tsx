"use client";
import { useState } from "react";

// Messages a person can act on, by the server's code; the server never says which of email and password was wrong.
function messageFor(status: number, body: { code?: string; message?: string }): string {
  if (status === 401) return "Wrong email or password.";
  if (status === 429) return body.message ?? "Too many failed sign-ins. Try again later.";
  if (body.code === "ACCOUNT_DEACTIVATED") return "This account is deactivated. Ask an admin to reactivate it.";
  if (status === 403) return "This sign-in was refused (open the dashboard at its configured address).";
  return body.message ?? `Sign-in failed (HTTP ${status}).`;
}

export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: form.get("email"), password: form.get("password") }),
      });
      if (response.ok) {
        window.location.assign(next);
        return;
      }
      setError(messageFor(response.status, await response.json().catch(() => ({}))));
    } catch {
      setError("The control plane did not answer. Is it running?");
    }
    setBusy(false);
  }

  return (
    <form className="form" onSubmit={submit} data-testid="sign-in-form">
      <label className="form-field">
        <span>Email</span>
        <input name="email" type="email" autoComplete="username" required autoFocus />
      </label>
      <label className="form-field">
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error && <div className="error-box" role="alert" data-testid="sign-in-error">{error}</div>}
      <button type="submit" className="btn primary" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
    </form>
  );
}
