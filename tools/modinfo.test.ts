import { describe, expect, it } from "vitest";
import { parseModinfoFirmware } from "./modinfo.ts";

// modinfo tg3.ko virtio_net.ko ice.ko, as kmod 30 prints it (fields trimmed)
const TEXT = `filename:       /r/kernel/drivers/net/ethernet/broadcom/tg3.ko
firmware:       tigon/tg3_tso5.bin
firmware:       tigon/tg3.bin
license:        GPL
filename:       /r/kernel/drivers/net/virtio_net.ko
alias:          virtio:d00000001v*
filename:       /r/kernel/drivers/net/ethernet/intel/ice/ice.ko
firmware:       intel/ice/ddp/ice.pkg
parm:           debug:netif level (0=none,...,16=all) (int)
`;

describe("parseModinfoFirmware", () => {
  it("gives each file, in order, the firmware its block names", () => {
    const files = ["tg3.ko", "virtio_net.ko", "ice.ko"];
    expect(parseModinfoFirmware(TEXT, files)).toEqual(
      new Map([
        ["tg3.ko", ["tigon/tg3_tso5.bin", "tigon/tg3.bin"]],
        ["virtio_net.ko", []],
        ["ice.ko", ["intel/ice/ddp/ice.pkg"]],
      ]),
    );
  });

  it("refuses output that does not hold one block per file", () => {
    expect(() => parseModinfoFirmware(TEXT, ["a.ko"])).toThrow(
      "modinfo printed 3 modules for 1 files",
    );
  });
});
