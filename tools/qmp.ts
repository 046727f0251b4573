// A QEMU Machine Protocol client (qemu.org/docs/master/interop/qmp-spec.html): one JSON
// command at a time over the VM's unix socket, after the capabilities handshake.
import { connect, type Socket } from "node:net";

export class Qmp {
  private buffer = "";
  private waiting: ((line: Record<string, unknown>) => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      for (let i = this.buffer.indexOf("\n"); i >= 0; i = this.buffer.indexOf("\n")) {
        const line = JSON.parse(this.buffer.slice(0, i)) as Record<string, unknown>;
        this.buffer = this.buffer.slice(i + 1);
        // Events come whenever they happen; only greetings and replies answer a caller.
        if (!("event" in line)) this.waiting.shift()?.(line);
      }
    });
  }

  /** Connects, retrying while QEMU starts, and negotiates capabilities. */
  static async connect(path: string, timeoutMs = 10_000): Promise<Qmp> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = connect(path, () => resolve(s));
          s.once("error", reject);
        });
        const qmp = new Qmp(socket);
        await qmp.next(); // the greeting
        await qmp.execute("qmp_capabilities");
        return qmp;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`no QMP on ${path}: ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  async execute(command: string, args?: Record<string, unknown>): Promise<unknown> {
    const reply = this.next();
    this.socket.write(
      `${JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}) })}\n`,
    );
    const line = await reply;
    if ("error" in line) throw new Error(`QMP ${command}: ${JSON.stringify(line.error)}`);
    return line.return;
  }

  close(): void {
    this.socket.destroy();
  }

  private next(): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
