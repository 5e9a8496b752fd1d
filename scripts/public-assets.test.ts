// The app icons and web manifest in public/: every icon the manifest or the layout's metadata names exists and
// is the size it claims (PNG sizes read from the IHDR chunk, the favicon's from its ICO directory).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { metadata } from "../src/lib/app-metadata";

const publicDir = join(import.meta.dirname, "..", "public");
const read = (url: string) => readFileSync(join(publicDir, url.replace(/^\//, "")));

function pngSize(bytes: Buffer): string {
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

describe("public/", () => {
  const manifest = JSON.parse(read("/manifest.webmanifest").toString("utf8")) as {
    name: string;
    start_url: string;
    icons: { src: string; sizes: string; type: string }[];
  };

  it("the manifest names the app and each of its icons exists at its declared size and type", () => {
    expect(manifest.name).toBe("Packrat");
    expect(manifest.start_url).toBe("/");
    for (const icon of manifest.icons) {
      const bytes = read(icon.src);
      if (icon.type === "image/png") expect(pngSize(bytes), icon.src).toBe(icon.sizes);
      else expect(bytes.toString("utf8"), icon.src).toMatch(/^<svg [^>]*viewBox="0 0 64 64"/);
    }
    expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
  });

  it("favicon.ico holds 16, 32 and 48 pixel PNG images, as the layout declares", () => {
    const ico = read("/favicon.ico");
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]); // reserved, type 1 = icon
    const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => {
      const entry = 6 + 16 * i;
      const png = ico.subarray(
        ico.readUInt32LE(entry + 12),
        ico.readUInt32LE(entry + 12) + ico.readUInt32LE(entry + 8),
      );
      expect(pngSize(png)).toBe(`${ico[entry]}x${ico[entry + 1]}`);
      return `${ico[entry]}x${ico[entry + 1]}`;
    });
    expect(sizes.join(" ")).toBe("16x16 32x32 48x48");
  });

  it("the layout's metadata points at these files", () => {
    expect(metadata.manifest).toBe("/manifest.webmanifest");
    const icons = metadata.icons as { icon: { url: string; sizes?: string }[]; apple: { url: string }[] };
    expect(icons.icon.find((i) => i.url === "/favicon.ico")?.sizes).toBe("16x16 32x32 48x48");
    for (const url of [...icons.icon, ...icons.apple].map((i) => i.url))
      expect(read(url).length, url).toBeGreaterThan(0);
    expect(manifest.icons.some((i) => i.src === "/apple-touch-icon.png" && i.sizes === "180x180")).toBe(true);
  });
});
