// One colour per deployment, stable by its position on the host, used by core maps and their legends.
const PALETTE = ["#2f6fed", "#1f9d55", "#b4489b", "#c77700", "#0f8b8d", "#6b5bd2", "#b33d3d", "#52734d"];

export const deploymentColor = (index: number) => PALETTE[index % PALETTE.length]!;
