/** Bundles cli/main.ts into dist/liken-stick.mjs. */
export function bundle(): Promise<void>;
