import packageJson from "../package.json" with { type: "json" };

export const agentVersion: string = packageJson.version;
