/** Bundles cli/main.ts into dist/liken-stick.mjs, or dist/liken-stick-test.mjs with the test hooks; returns the path. */
export function bundle(options?: { testHooks?: boolean }): Promise<string>;
export function bundleAgent(): Promise<string>;
