import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: ["node_modules/**", "test/qemu/**", "dist/**"],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          // Whole machines under TCG: one file at a time, so two VMs do not share 2 cores.
          name: "qemu",
          include: ["test/qemu/**/*.test.ts"],
          // Stops every VM a test file left running (test/qemu/harness.ts).
          setupFiles: ["test/qemu/setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
