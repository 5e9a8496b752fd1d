"use client";
// A secret the server shows once (a new token): its value, Copy, Done, and what to do with it.
import { useState, type ReactNode } from "react";

export function OneTimeSecret(props: {
  title: string;
  secret: string;
  testId: string;
  valueTestId: string;
  onDone: () => void;
  children: ReactNode;
}) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard?.writeText(props.secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <div className="token-once" data-testid={props.testId}>
      <strong>{props.title} Copy it now: it is not shown again.</strong>
      <div className="token-row">
        <code data-testid={props.valueTestId}>{props.secret}</code>
        <button type="button" className="btn small" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="btn small" onClick={props.onDone}>
          Done
        </button>
      </div>
      <div className="kv-inline">{props.children}</div>
    </div>
  );
}
