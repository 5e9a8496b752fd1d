"use client";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import { fieldError } from "./field-error";

// The user's own password: the current one, then the new one twice (checked here; the server checks the rest).
export function ChangePasswordForm() {
  const trpc = useTRPC();
  const change = useMutation(trpc.users.changePassword.mutationOptions());

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const newPassword = String(data.get("newPassword"));
    const repeat = form.elements.namedItem("repeatPassword") as HTMLInputElement;
    if (newPassword !== String(data.get("repeatPassword"))) {
      repeat.setCustomValidity("does not match the new password");
      repeat.reportValidity();
      return;
    }
    change.mutate(
      { currentPassword: String(data.get("currentPassword")), newPassword },
      { onSuccess: () => form.reset() },
    );
  }

  const newError = fieldError(change.error, "newPassword");
  return (
    <section className="section">
      <h2>Change your password</h2>
      <form className="form panel" onSubmit={submit} data-testid="change-password-form" style={{ maxWidth: 420 }}>
        <label className="form-field">
          <span>Current password</span>
          <input name="currentPassword" type="password" required autoComplete="current-password" />
        </label>
        <label className="form-field">
          <span>New password {newError && <em className="form-field-error">{newError}</em>}</span>
          <input
            name="newPassword"
            type="password"
            required
            minLength={12}
            maxLength={128}
            autoComplete="new-password"
            placeholder="at least 12 characters"
          />
        </label>
        <label className="form-field">
          <span>New password again</span>
          <input
            name="repeatPassword"
            type="password"
            required
            autoComplete="new-password"
            onInput={(e) => e.currentTarget.setCustomValidity("")}
          />
        </label>
        <button type="submit" className="btn primary" disabled={change.isPending}>
          {change.isPending ? "Changing…" : "Change password"}
        </button>
      </form>
      {change.error && !newError && (
        <div className="error-box" role="alert" style={{ marginTop: 10 }}>
          {change.error.message}
        </div>
      )}
      {change.data && (
        <div className="notice" role="status" data-testid="change-password-notice" style={{ marginTop: 10 }}>
          Password changed.{" "}
          {change.data.otherSessionsEnded === 0
            ? "No other session was signed in."
            : `${change.data.otherSessionsEnded} other session${change.data.otherSessionsEnded === 1 ? " was" : "s were"} signed out.`}
        </div>
      )}
    </section>
  );
}
