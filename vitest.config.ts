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
          // Whole machines under TCG: two files at a time, each VM with one vCPU, so the two
          // cores each run one guest (most of a boot is one thread, and the waits for a
          // watchdog, a panic's reset or a person overlap).
          name: "qemu",
          include: ["test/qemu/**/*.test.ts"],
          // Stops every VM a test file left running (test/qemu/harness.ts).
          setupFiles: ["test/qemu/setup.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: 2,
          env: { LIKEN_VM_CPUS: "1" },
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
