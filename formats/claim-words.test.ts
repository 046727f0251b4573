import { describe, expect, it } from "vitest";
import { claimOwner, claimOwnerBeside } from "./claim-words.ts";

const plain = { cluster: "mycluster", machine: "leader-1" };
const peer = { serial: "S4EVNX0N123456", wwn: "0x5002538e4a8b1234", path: "/dev/sdb" };

describe("whose install a disk holds, in words", () => {
  it("names the cluster and the machine of a disk that is not mirrored, and no peer", () => {
    expect(claimOwner(plain)).toBe("mycluster/leader-1");
    expect(claimOwnerBeside(plain)).toBe("mycluster/leader-1");
  });

  it("names a mirror member's place", () => {
    expect(claimOwner({ ...plain, mirror: { member: 1, peer } })).toBe(
      "mirror member 1 of 2 of mycluster/leader-1",
    );
    expect(claimOwner({ ...plain, mirror: { member: 2, peer } })).toBe(
      "mirror member 2 of 2 of mycluster/leader-1",
    );
  });

  it("names the other member by its serial, else its WWN, else its path", () => {
    const beside = (p: typeof peer | Partial<typeof peer>) =>
      claimOwnerBeside({ ...plain, mirror: { member: 2, peer: p } });
    expect(beside(peer)).toBe("mirror member 2 of 2 of mycluster/leader-1 beside S4EVNX0N123456");
    expect(beside({ wwn: peer.wwn, path: peer.path })).toBe(
      "mirror member 2 of 2 of mycluster/leader-1 beside 0x5002538e4a8b1234",
    );
    expect(beside({ path: peer.path })).toBe(
      "mirror member 2 of 2 of mycluster/leader-1 beside /dev/sdb",
    );
    expect(beside({})).toBe("mirror member 2 of 2 of mycluster/leader-1");
  });

  it("reads the summary `disks --json` shows as the claim itself", () => {
    const summary = { ...plain, release: "1.0.0", mirror: { member: 1 as const, of: 2, peer } };
    expect(claimOwnerBeside(summary)).toBe(
      "mirror member 1 of 2 of mycluster/leader-1 beside S4EVNX0N123456",
    );
  });

  it("shows a control character from the disk as a question mark", () => {
    const damaged = { cluster: "my\u001b[2Jcluster", machine: "leader-1" };
    const mirror = { member: 1 as const, peer: { serial: "S4\r\nX" } };
    expect(claimOwnerBeside({ ...damaged, mirror })).toBe(
      "mirror member 1 of 2 of my?[2Jcluster/leader-1 beside S4??X",
    );
  });
});
