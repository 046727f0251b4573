// Which drivers each medium's initramfs loads: a stick carries no CD driver (every module
// loaded is CPU work under emulation, and a raw image is never a CD), an ISO does.
import { describe, expect, it } from "vitest";
import { STICK_GUIDS, stickInitrdModules } from "./build-stick.ts";

const all = (m: ReturnType<typeof stickInitrdModules>) => Object.values(m).flat();

describe("the initramfs's drivers", () => {
  it("on a stick: USB, the disk controllers an image written to a disk sits behind, no CD", () => {
    const stick = all(stickInitrdModules({ kind: "stick", payloadPartUuid: STICK_GUIDS.payload }));
    expect(stick).toEqual(expect.arrayContaining(["xhci_pci", "usb_storage", "uas", "nvme"]));
    expect(stick).not.toContain("sr_mod");
    expect(stick).not.toContain("isofs");
  });

  it("on an ISO or the network: a CD drive and ISO 9660 too", () => {
    for (const medium of [{ kind: "iso", volumeLabel: "LIKEN_STICK" }, { kind: "net" }] as const)
      expect(all(stickInitrdModules(medium))).toEqual(expect.arrayContaining(["sr_mod", "isofs"]));
  });
});
