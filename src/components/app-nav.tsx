"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { AlertsNavCount } from "./alerts/alerts-nav-count";

// The links come from the server (nav-links.ts), already filtered to the signed-in user's role.
export function AppNav({ links }: { links: Array<{ href: string; label: string }> }) {
  const pathname = usePathname();
  const current = (href: string) =>
    href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
  return (
    <nav aria-label="Main">
      {links.map((link) => {
        const anchor = (
          <Link key={link.href} href={link.href} aria-current={current(link.href) ? "page" : undefined}>
            {link.label}
          </Link>
        );
        // The open-alert count sits beside its link (not in it), so the link's name stays "Alerts".
        return link.href === "/alerts" ? (
          <div key={link.href} className="nav-with-count">
            {anchor}
            <AlertsNavCount />
          </div>
        ) : (
          anchor
        );
      })}
    </nav>
  );
}
