import { defineConfig } from "vitest/config";

// Three tiers (docs/design.md section 9), run one after the other so that each one's time
// in the closing summary (test/tier-summary.ts) is its own:
// - unit: pure logic, no program started;
// - integration (`*.int.test.ts`): the real tools on image files, loop devices and PTYs;
// - qemu (`test/qemu/`): whole machines under OVMF.
export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/tier-summary.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: ["node_modules/**", "test/qemu/**", "dist/**", "**/*.int.test.ts"],
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: ["node_modules/**", "test/qemu/**", "dist/**"],
          testTimeout: 60_000,
          sequence: { groupOrder: 1 },
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
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
