// The page metadata every page shares: title, icons and the web manifest.
import type { Metadata, Viewport } from "next";

export const metadata: Metadata = {
  title: "Packrat",
  description: "Control plane for DNN model serving on many-core CPUs",
  // The files live in public/ (public/manifest.webmanifest lists the same icons for an installed app).
  icons: {
    icon: [
      { url: "/favicon.ico", sizes: "16x16 32x32 48x48" },
      { url: "/icon.svg", type: "image/svg+xml" },
    ],
    apple: [{ url: "/apple-touch-icon.png", sizes: "180x180" }],
  },
  manifest: "/manifest.webmanifest",
};

export const viewport: Viewport = { themeColor: "#2f6fed" };
