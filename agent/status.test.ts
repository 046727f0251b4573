// The installed machine's status document as an operator reads it: its conditions, when
// each last changed, and messages that are one line and carry no secret.
import { describe, expect, it } from "vitest";
import { type Condition, type MachineStatus, machineStatus, type StatusInput } from "./status.ts";
import type { CrashRecord, Rejection } from "./types.ts";

const T0 = "2026-12-01T04:00:00Z";
const T1 = "2026-12-01T04:10:00Z";
const T2 = "2026-12-01T04:20:00Z";
const BOOT_ID = "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a";

function input(over: Partial<StatusInput> = {}): StatusInput {
  return {
    now: T0,
    bootId: BOOT_ID,
    slot: "a",
    version: "1.0.0",
    trial: false,
    phase: "Running",
    rejection: null,
    lastCrash: null,
    previous: null,
    root: { partUuid: "62b67372-f6f3-8add-9fbd-37c635f1cff0", verity: true },
    watchdog: null,
    secureBoot: "enabled",
    network: {
      modules: [],
      modulesApplied: { status: "True", reason: "NoModulesDeclared", message: "" },
      portsReady: { status: "True", reason: "NoPortsDeclared", message: "" },
      applied: null,
      networkReady: { status: "True", reason: "NoInterfacesDeclared", message: "" },
    },
    ...over,
  };
}

function condition(s: MachineStatus, type: Condition["type"]): Condition {
  const c = s.conditions.find((x) => x.type === type);
  if (!c) throw new Error(`no ${type} condition`);
  return c;
}

const REJECTION: Rejection = {
  version: "2.0.0",
  slot: "b",
  reason: "Crashed",
  attempts: 1,
  time: T0,
  message: "the kernel crashed: Kernel panic - not syncing: sysrq triggered crash",
};

describe("machineStatus", () => {
  it("is Ready on a healthy boot, with every other condition False", () => {
    const s = machineStatus(input());
    expect(s).toMatchObject({
      apiVersion: "liken.dev/v1",
      kind: "MachineStatus",
      phase: "Running",
      version: "1.0.0",
      slot: "a",
      boot: {
        slot: "a",
        version: "1.0.0",
        trial: false,
        systemRejection: null,
        root: { partUuid: "62b67372-f6f3-8add-9fbd-37c635f1cff0", verity: true },
        watchdog: null,
        secureBoot: "enabled",
      },
      lastCrash: null,
      modules: [],
      network: null,
      updatedAt: T0,
      bootId: BOOT_ID,
    });
    expect(s.conditions).toEqual([
      {
        type: "Ready",
        status: "True",
        reason: "BootComplete",
        message: "liken 1.0.0 runs from slot a",
        lastTransitionTime: T0,
      },
      {
        type: "RejectedLastBoot",
        status: "False",
        reason: "NoRejection",
        message: "",
        lastTransitionTime: T0,
      },
      {
        type: "RebootPending",
        status: "False",
        reason: "NothingStaged",
        message: "",
        lastTransitionTime: T0,
      },
      {
        type: "StagingRejected",
        status: "False",
        reason: "NoRejection",
        message: "",
        lastTransitionTime: T0,
      },
      {
        type: "PortsReady",
        status: "True",
        reason: "NoPortsDeclared",
        message: "",
        lastTransitionTime: T0,
      },
      {
        type: "ModuleParametersApplied",
        status: "True",
        reason: "NoModulesDeclared",
        message: "",
        lastTransitionTime: T0,
      },
      {
        type: "NetworkReady",
        status: "True",
        reason: "NoInterfacesDeclared",
        message: "",
        lastTransitionTime: T0,
      },
    ]);
  });

  it("carries the declared modules' parameters and the ports' condition", () => {
    const s = machineStatus(
      input({
        network: {
          modules: [{ name: "e1000e", parameters: { copybreak: "128" } }],
          modulesApplied: { status: "True", reason: "Applied", message: "loaded: e1000e" },
          portsReady: {
            status: "False",
            reason: "PortWithoutCarrier",
            message: "eno1 has no carrier after 30 s",
          },
          applied: null,
          networkReady: { status: "True", reason: "NoInterfacesDeclared", message: "" },
        },
      }),
    );
    expect(s.modules).toEqual([{ name: "e1000e", parameters: { copybreak: "128" } }]);
    expect(condition(s, "PortsReady")).toMatchObject({
      status: "False",
      reason: "PortWithoutCarrier",
    });
    expect(condition(s, "Ready").status).toBe("True");
  });

  it("is not Ready with the reason given", () => {
    const s = machineStatus(
      input({
        phase: "Failed",
        notReady: { reason: "HealthCheckFailed", message: "kubelet did not answer in 120 s" },
      }),
    );
    expect(condition(s, "Ready")).toMatchObject({
      status: "False",
      reason: "HealthCheckFailed",
      message: "kubelet did not answer in 120 s",
    });
    expect(s.phase).toBe("Failed");
  });

  it("says RejectedLastBoot with the rejection's reason, and carries it as boot.systemRejection", () => {
    const s = machineStatus(input({ rejection: REJECTION }));
    expect(condition(s, "RejectedLastBoot")).toEqual({
      type: "RejectedLastBoot",
      status: "True",
      reason: "Crashed",
      message:
        "release 2.0.0 failed its trial boot in slot b: the kernel crashed: Kernel panic - not syncing: sysrq triggered crash",
      lastTransitionTime: T0,
    });
    expect(s.boot.systemRejection).toEqual(REJECTION);
    expect(condition(s, "Ready").status).toBe("True");
  });

  it("says RebootPending when a staged release waits for a reboot", () => {
    const s = machineStatus(input({ rebootPending: { slot: "b", version: "2.0.1" } }));
    expect(condition(s, "RebootPending")).toMatchObject({
      status: "True",
      reason: "StagedRelease",
      message: expect.stringMatching(/2\.0\.1.*slot b/),
    });
  });

  it("says StagingRejected with the staging's reason and message", () => {
    const s = machineStatus(
      input({
        stagingRejected: {
          reason: "VersionRejected",
          message:
            "release 2.0.0 failed its trial boot (Crashed); set spec.version to a different release",
        },
      }),
    );
    expect(condition(s, "StagingRejected")).toMatchObject({
      status: "True",
      reason: "VersionRejected",
      message:
        "release 2.0.0 failed its trial boot (Crashed); set spec.version to a different release",
    });
  });

  it("marks a trial boot, with the watchdog that armed it, the root's partition and Secure Boot", () => {
    expect(
      machineStatus(
        input({
          trial: true,
          slot: "b",
          version: "2.0.0",
          watchdog: "i6300ESB timer",
          secureBoot: "disabled",
        }),
      ).boot,
    ).toEqual({
      slot: "b",
      version: "2.0.0",
      trial: true,
      systemRejection: null,
      root: { partUuid: "62b67372-f6f3-8add-9fbd-37c635f1cff0", verity: true },
      watchdog: "i6300ESB timer",
      secureBoot: "disabled",
    });
  });
});

describe("lastTransitionTime", () => {
  it("is kept while a condition's status holds, and changes when it flips", () => {
    const first = machineStatus(input({ now: T0 }));
    const second = machineStatus(input({ now: T1, rejection: REJECTION, previous: first }));
    expect(condition(second, "Ready").lastTransitionTime).toBe(T0);
    expect(condition(second, "RejectedLastBoot").lastTransitionTime).toBe(T1);
    expect(condition(second, "RebootPending").lastTransitionTime).toBe(T0);
    expect(second.updatedAt).toBe(T1);

    const third = machineStatus(input({ now: T2, rejection: REJECTION, previous: second }));
    expect(condition(third, "RejectedLastBoot").lastTransitionTime).toBe(T1);

    const fourth = machineStatus(input({ now: T2, previous: third }));
    expect(condition(fourth, "RejectedLastBoot")).toMatchObject({
      status: "False",
      lastTransitionTime: T2,
    });
    expect(condition(fourth, "Ready").lastTransitionTime).toBe(T0);
  });

  it("is kept when only the reason changes, not the status", () => {
    const first = machineStatus(input({ notReady: { reason: "StateUnmounted", message: "x" } }));
    const second = machineStatus(
      input({
        now: T1,
        notReady: { reason: "HealthCheckFailed", message: "y" },
        previous: first,
      }),
    );
    expect(condition(second, "Ready")).toMatchObject({
      reason: "HealthCheckFailed",
      lastTransitionTime: T0,
    });
  });

  it("starts now for a previous document without conditions (damaged or older)", () => {
    const damaged = { conditions: undefined } as unknown as MachineStatus;
    const s = machineStatus(input({ now: T1, previous: damaged }));
    expect(s.conditions.every((c) => c.lastTransitionTime === T1)).toBe(true);
  });
});

describe("sanitized messages", () => {
  const PEM = [
    "-----BEGIN PRIVATE KEY-----",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "-----END PRIVATE KEY-----",
  ].join("\n");

  it("redacts a PEM block and a token, and keeps the message on one line", () => {
    const s = machineStatus(
      input({
        notReady: {
          reason: "HealthCheckFailed",
          message: `join failed:\n${PEM}\nretry with token=abcdef0123456789abcdef0123456789XYZ`,
        },
      }),
    );
    const { message } = condition(s, "Ready");
    expect(message).not.toContain("\n");
    expect(message).not.toContain("MIIEvQ");
    expect(message).not.toContain("abcdef0123456789");
    expect(message).toContain("[redacted PEM block]");
    expect(message).toContain("token=[redacted]");
    expect(message).toMatch(/^join failed: /);
  });

  it("redacts the rejection's message in boot.systemRejection and in its condition", () => {
    const s = machineStatus(
      input({
        rejection: { ...REJECTION, reason: "HealthCheckFailed", message: `bad\n${PEM}` },
      }),
    );
    expect(s.boot.systemRejection?.message).toBe("bad [redacted PEM block]");
    expect(condition(s, "RejectedLastBoot").message).toBe(
      "release 2.0.0 failed its trial boot in slot b: bad [redacted PEM block]",
    );
  });

  it("redacts a staging refusal's message", () => {
    const s = machineStatus(
      input({
        stagingRejected: {
          reason: "ReleaseNotFound",
          message: "fetch https://x/?password=hunter2hunter2 failed\nagain",
        },
      }),
    );
    expect(condition(s, "StagingRejected").message).toBe(
      "fetch https://x/?password=[redacted] failed again",
    );
  });

  it("sanitizes every line of lastCrash, keeping the kernel's words and the rest of the record", () => {
    const crash: CrashRecord = {
      id: "a1b2c3d4e5f60718",
      time: T0,
      bootId: BOOT_ID,
      release: "2.0.0",
      slot: "b",
      kind: "Panic",
      lines: [
        "[    0.000000] Command line: ro liken.slot=b liken.token=s3cr3tS3cr3tS3cr3tS3cr3tS3cr3tS3cr3t",
        "[   31.101500] Kernel panic - not syncing: sysrq triggered crash",
        "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1\tDebian 6.1.115-1",
      ],
    };
    const s = machineStatus(input({ lastCrash: crash }));
    expect(s.lastCrash).toEqual({
      ...crash,
      lines: [
        "[ 0.000000] Command line: ro liken.slot=b liken.token=[redacted]",
        "[ 31.101500] Kernel panic - not syncing: sysrq triggered crash",
        "[ 31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1 Debian 6.1.115-1",
      ],
    });
  });

  it("carries status.network and NetworkReady as the declared network came to be", () => {
    const applied = {
      interfaces: [
        {
          name: "bond0",
          kind: "bond" as const,
          state: "up" as const,
          mtu: 9000,
          addresses: [],
          dhcp: false,
          bond: {
            mode: "active-backup" as const,
            members: [
              { name: "eno1", carrier: true, active: true },
              { name: "eno2", carrier: false, active: false },
            ],
          },
        },
      ],
      nameservers: ["10.0.40.2"],
    };
    const s = machineStatus(
      input({
        network: {
          ...input().network,
          applied,
          networkReady: {
            status: "False",
            reason: "BondDegraded",
            message: "bond0: eno2 has no carrier, traffic runs on eno1 alone\nand more",
          },
        },
      }),
    );
    expect(s.network).toEqual(applied);
    expect(condition(s, "NetworkReady")).toEqual({
      type: "NetworkReady",
      status: "False",
      reason: "BondDegraded",
      message: "bond0: eno2 has no carrier, traffic runs on eno1 alone and more",
      lastTransitionTime: T0,
    });
  });
  it("holds seven conditions on one disk, and SystemDiskMirrored eighth on a mirrored machine", () => {
    expect(machineStatus(input()).conditions.map((c) => c.type)).not.toContain(
      "SystemDiskMirrored",
    );
    expect(machineStatus(input()).conditions).toHaveLength(7);
    const missing = {
      status: "False" as const,
      reason: "MemberMissing",
      message: "mirror member 2 (serial S122) is missing: the machine runs from member 1 alone",
    };
    const first = machineStatus(input({ mirror: missing }));
    expect(first.conditions).toHaveLength(8);
    expect(first.conditions[7]).toEqual({
      type: "SystemDiskMirrored",
      ...missing,
      lastTransitionTime: T0,
    });
    // Still missing at the next boot: it went False at the first.
    const again = machineStatus(input({ now: T1, previous: first, mirror: missing }));
    expect(condition(again, "SystemDiskMirrored").lastTransitionTime).toBe(T0);
  });

  it("says DiskEncrypted and encryption on an encrypted machine only, with no key in either", () => {
    const plain = machineStatus(input());
    expect(plain.conditions.map((c) => c.type)).not.toContain("DiskEncrypted");
    expect(plain).not.toHaveProperty("encryption");
    const encryption = {
      tpm: true as const,
      pcrs: [7],
      opened: ["state", "data"],
      openedBy: "tpm" as const,
    };
    const opened = {
      status: "True" as const,
      reason: "OpenedByTpm",
      message: "state, data opened by the TPM (sealed to PCR 7)",
    };
    const s = machineStatus(input({ encryption, encrypted: opened }));
    expect(s.encryption).toEqual(encryption);
    expect(s.conditions.at(-1)).toEqual({
      type: "DiskEncrypted",
      ...opened,
      lastTransitionTime: T0,
    });
  });
});
