// SystemDiskMirrored as an operator reads it: both disks there, one missing, one failing,
// each naming the disk by what is printed on it and saying what to do.
import { describe, expect, it } from "vitest";
import type { IdentityMirrorMember } from "../formats/identity.ts";
import { mirrorCondition, mirrorMembers, type PeerObservation } from "./mirror-condition.ts";

function member(n: 1 | 2, over: Partial<IdentityMirrorMember> = {}): IdentityMirrorMember {
  const labels = ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"];
  return {
    member: n,
    serial: `S12${n}`,
    path: n === 1 ? "/dev/vda" : "/dev/vdb",
    partUuids: Object.fromEntries(
      labels.map((l, i) => [l, `${n}000000${i}-0000-4000-8000-000000000000`]),
    ),
    ...over,
  };
}

const ONE = member(1);
const TWO = member(2);

function seen(over: Partial<PeerObservation> = {}): PeerObservation {
  return { booted: ONE, peer: TWO, machine: "leader-1", absent: [], failure: null, ...over };
}

describe("mirrorMembers", () => {
  it("finds the booted member by its ESP's PARTUUID, whichever disk the firmware took", () => {
    expect(mirrorMembers([ONE, TWO], null, "10000000-0000-4000-8000-000000000000")).toEqual({
      booted: ONE,
      peer: TWO,
    });
    expect(mirrorMembers([ONE, TWO], null, "20000000-0000-4000-8000-000000000000")).toEqual({
      booted: TWO,
      peer: ONE,
    });
  });

  it("says why when identity.json does not name this disk or its peer", () => {
    expect(mirrorMembers([ONE, TWO], null, "ffffffff-0000-4000-8000-000000000000")).toBe(
      "the install's identity names no mirror member with this disk's ESP (PARTUUID ffffffff-0000-4000-8000-000000000000)",
    );
    expect(
      mirrorMembers(
        [ONE],
        "mirror.members holds 1 members, not 2",
        "10000000-0000-4000-8000-000000000000",
      ),
    ).toBe("mirror.members holds 1 members, not 2");
  });
});

describe("mirrorCondition", () => {
  it("is True when the other disk is there and took every read and write", () => {
    expect(mirrorCondition(seen())).toEqual({
      status: "True",
      reason: "BothMembers",
      message: "the system is on mirror members 1 and 2; this boot came from member 1",
    });
  });

  it("names the missing disk's serial and the two ways back", () => {
    expect(
      mirrorCondition(
        seen({ absent: ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"] }),
      ),
    ).toEqual({
      status: "False",
      reason: "MemberMissing",
      message:
        "mirror member 2 (serial S122) is missing: the machine runs from member 1 alone; put the disk back, or replace it with a blank disk and choose Repair the mirror of leader-1 on the stick's menu (or boot the stick with liken.repair=1)",
    });
  });

  it("names a disk without a serial by its WWN, else by its path at the install", () => {
    const absent = ["liken-esp", "liken-a", "liken-b", "liken-journal", "liken-state"];
    const noSerial = member(1, { serial: undefined, wwn: "0x5000c500a1b2c3d4" });
    expect(mirrorCondition(seen({ booted: TWO, peer: noSerial, absent })).message).toMatch(
      /^mirror member 1 \(WWN 0x5000c500a1b2c3d4\) is missing: the machine runs from member 2 alone/,
    );
    const bare = member(1, { serial: undefined });
    expect(mirrorCondition(seen({ booted: TWO, peer: bare, absent })).message).toMatch(
      /^mirror member 1 \(\/dev\/vda at the install\) is missing/,
    );
  });

  it("is MemberFailed, with the error's first line, when the disk is there but a read or write failed", () => {
    expect(mirrorCondition(seen({ failure: "EIO: i/o error, write" }))).toEqual({
      status: "False",
      reason: "MemberFailed",
      message:
        "mirror member 2 (serial S122) failed: EIO: i/o error, write; the machine runs from member 1 alone; replace it with a blank disk and choose Repair the mirror of leader-1 on the stick's menu (or boot the stick with liken.repair=1)",
    });
  });

  it("is MemberFailed when only some of the disk's partitions are found", () => {
    expect(mirrorCondition(seen({ absent: ["liken-b"] }))).toMatchObject({
      reason: "MemberFailed",
      message: expect.stringMatching(
        /^mirror member 2 \(serial S122\) failed: its partition liken-b is not found;/,
      ),
    });
  });

  it("is MirrorUnknown when identity.json's mirror does not say which disk is which", () => {
    expect(mirrorCondition({ unreadable: "mirror.members holds 1 members, not 2" })).toEqual({
      status: "False",
      reason: "MirrorUnknown",
      message:
        "the mirror is not known: mirror.members holds 1 members, not 2; the agent writes this disk alone; read both disks with liken-stick inspect",
    });
  });
});
