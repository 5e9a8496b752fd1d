"use client";
import { useState } from "react";

// Messages a person can act on, by the server's code; the server never says which of email and password was wrong.
// A refused origin (this page opened at an address other than PACKRAT_PUBLIC_URL) names the configured address.
type SignInError = { text: string } | { refusedOrigin: true };
function errorFor(status: number, body: { code?: string; message?: string; error?: { code?: string } }): SignInError {
  if (status === 401) return { text: "Wrong email or password." };
  if (status === 429) return { text: body.message ?? "Too many failed sign-ins. Try again later." };
  if (body.code === "ACCOUNT_DEACTIVATED")
    return { text: "This account is deactivated. Ask an admin to reactivate it." };
  if (status === 403) return { refusedOrigin: true };
  return { text: body.message ?? `Sign-in failed (HTTP ${status}).` };
}

export function SignInForm({ next, publicUrl }: { next: string; publicUrl: string }) {
  const [error, setError] = useState<SignInError | null>(null);
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
      setError(errorFor(response.status, await response.json().catch(() => ({}))));
    } catch {
      setError({ text: "The control plane did not answer. Is it running?" });
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
      {error && (
        <div className="error-box" role="alert" data-testid="sign-in-error">
          {"text" in error ? (
            error.text
          ) : (
            <>
              This sign-in was refused: the dashboard is configured at another address. Open it at{" "}
              <a
                href={new URL(`/sign-in?next=${encodeURIComponent(next)}`, publicUrl).href}
                data-testid="configured-address"
              >
                {new URL(publicUrl).origin}
              </a>{" "}
              and sign in there.
            </>
          )}
        </div>
      )}
      <button type="submit" className="btn primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
