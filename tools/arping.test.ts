// busybox arping -D's output, captured from the pinned busybox in a network namespace.
import { describe, expect, it } from "vitest";
import { replyMac } from "./arping.ts";

describe("replyMac", () => {
  it("reads the MAC of the host that answered, and none when nobody did", () => {
    expect(
      replyMac(
        "ARPING 10.9.0.2 from 0.0.0.0 vcapa\nUnicast reply from 10.9.0.2 [F2:D0:66:05:66:99] 0.008ms\nSent 1 probe(s) (0 broadcast(s))\nReceived 1 response(s) (0 request(s), 0 broadcast(s))\n",
      ),
    ).toBe("f2:d0:66:05:66:99");
    expect(
      replyMac(
        "ARPING 10.9.0.3 from 0.0.0.0 vcapa\nSent 2 probe(s) (0 broadcast(s))\nReceived 0 response(s) (0 request(s), 0 broadcast(s))\n",
      ),
    ).toBeNull();
  });
});
