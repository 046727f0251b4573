// The .dsc reader and the pin (the fetch itself runs in disk-corpus.int.test.ts's beforeAll).
import { describe, expect, it } from "vitest";
import {
  origTarball,
  parseDscChecksums,
  readUtilLinuxLock,
  UTIL_LINUX_LOCK,
} from "./util-linux-source.ts";

const ORIG = "60492a19b44e6cf9a3ddff68325b333b8b52b6c59ce3ebd6a0ecaa4c5117e84f";
const DEBIAN = "d46b85313f536fc4831a69ba3fa2c8160450b5b26c7c5dfafce4f078fe4f205c";

// The shape of util-linux_2.38.1-5+deb12u3.dsc: clear-signed, Checksums-Sha256 then Files.
const DSC = `-----BEGIN PGP SIGNED MESSAGE-----
Hash: SHA256

Format: 3.0 (quilt)
Source: util-linux
Version: 2.38.1-5+deb12u3
Checksums-Sha1:
 0b8a4e3c9e4d0cc0ff2fa0a2e9e0b3d1b0a1c2d3 7495904 util-linux_2.38.1.orig.tar.xz
Checksums-Sha256:
 ${ORIG} 7495904 util-linux_2.38.1.orig.tar.xz
 ${DEBIAN} 121964 util-linux_2.38.1-5+deb12u3.debian.tar.xz
Files:
 cd11456f4ddd31f7fbfdd9488c0c0d02 7495904 util-linux_2.38.1.orig.tar.xz

-----BEGIN PGP SIGNATURE-----

iQIzBAEBCAAdFiEE
-----END PGP SIGNATURE-----
`;

describe("the util-linux source package's .dsc", () => {
  it("lists the files of Checksums-Sha256, and the .orig.tar.xz among them", () => {
    const files = parseDscChecksums(DSC);
    expect(files).toEqual([
      { sha256: ORIG, size: 7495904, name: "util-linux_2.38.1.orig.tar.xz" },
      { sha256: DEBIAN, size: 121964, name: "util-linux_2.38.1-5+deb12u3.debian.tar.xz" },
    ]);
    expect(origTarball(files, "x.dsc").name).toBe("util-linux_2.38.1.orig.tar.xz");
  });

  it("refuses a .dsc without the field, with a malformed line, or without one .orig.tar.xz", () => {
    expect(() => parseDscChecksums(DSC.replace("Checksums-Sha256:", "Checksums-Sha512:"))).toThrow(
      /no Checksums-Sha256 field/,
    );
    expect(() => parseDscChecksums(DSC.replace(` ${ORIG} 7495904`, ` ${ORIG} big`))).toThrow(
      /malformed Checksums-Sha256 line/,
    );
    const debianOnly = parseDscChecksums(DSC).filter((f) => !f.name.includes(".orig."));
    expect(() => origTarball(debianOnly, "x.dsc")).toThrow(/lists 0 \.orig\.tar\.xz files/);
  });

  it("is pinned by its sha256 in util-linux.lock.json, with the images' count", async () => {
    const lock = await readUtilLinuxLock();
    expect(lock.dsc.sha256, UTIL_LINUX_LOCK).toMatch(/^[0-9a-f]{64}$/);
    expect(lock.dsc.filename).toBe(`${lock.package}_${lock.version}.dsc`);
    expect(lock.images).toBeGreaterThan(0);
    for (const line of lock.sources) expect(line).toMatch(/^deb-src \[signed-by=\/\S+\.gpg\] /);
  });
});
