import packageJson from "../../package.json" with { type: "json" };

export const packratVersion: string = packageJson.version;
