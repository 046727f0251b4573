// A TpmTransport over swtpm's data socket (testing/swtpm.ts, "host"): the raw commands and
// responses the kernel's /dev/tpmrm0 carries, with no resource manager between, so what a
// test leaves loaded stays until swtpm stops.
import { connect, type Socket } from "node:net";
import type { TpmTransport } from "../hardware/tpm/transport.ts";

const HEADER = 10;

export async function connectTpmSocket(path: string): Promise<TpmTransport> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(path);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });
  let queue: Promise<unknown> = Promise.resolve();
  return {
    transmit(command) {
      const turn = queue.then(() => exchange(socket, command));
      queue = turn.catch(() => undefined);
      return turn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        socket.once("close", () => resolve());
        socket.end();
      }),
  };
}

function exchange(socket: Socket, command: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let got = 0;
    const done = (error?: Error) => {
      socket.off("data", onData);
      socket.off("error", done);
      socket.off("close", onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(parts));
    };
    const onData = (chunk: Buffer) => {
      parts.push(chunk);
      got += chunk.length;
      if (got >= HEADER && got >= Buffer.concat(parts).readUInt32BE(2)) done();
    };
    const onClose = () =>
      done(new Error(`swtpm closed the socket after ${got} bytes of an answer`));
    socket.on("data", onData);
    socket.once("error", done);
    socket.once("close", onClose);
    socket.write(command);
  });
}
