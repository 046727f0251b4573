// A QEMU Machine Protocol client over the VM's unix socket (qemu.org/docs/master/interop/
// qmp-spec.html): the greeting, the capabilities handshake, commands matched to their
// replies by id, and asynchronous events kept in arrival order. QEMU is started with
// `-qmp unix:PATH,server=on,wait=off` (testing/qemu/).
import { connect, type Socket } from "node:net";

export interface QmpEvent {
  readonly event: string;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly timestamp: { readonly seconds: number; readonly microseconds: number };
}

/** A command QEMU answered with an error, or one that got no answer. */
export class QmpError extends Error {
  override readonly name = "QmpError";
  constructor(
    readonly command: string,
    /** QMP's error class ("GenericError", "DeviceNotFound"), or "Disconnected"/"Timeout". */
    readonly errorClass: string,
    readonly description: string,
  ) {
    super(`QMP ${command}: ${description} (${errorClass})`);
  }
}

interface Pending {
  readonly command: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

export class QmpClient {
  readonly #socket: Socket;
  readonly #pending = new Map<string, Pending>();
  readonly #events: QmpEvent[] = [];
  readonly #listeners = new Set<(event: QmpEvent) => void>();
  #buffer = "";
  #nextId = 1;
  #greeting: (() => void) | undefined;
  #isClosed = false;
  /** Resolves when the connection ends (QEMU exited, or close()). */
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.#receive(chunk));
    this.closed = new Promise((resolve) => {
      socket.once("close", () => {
        this.#isClosed = true;
        for (const [id, p] of this.#pending) {
          this.#pending.delete(id);
          p.reject(new QmpError(p.command, "Disconnected", "QEMU closed the QMP connection"));
        }
        resolve();
      });
    });
    // Errors end in "close"; a reset connection is how QEMU says it exited.
    socket.on("error", () => {});
  }

  /**
   * Connects to `path`, retrying while QEMU is still creating the socket, and negotiates
   * capabilities. Throws after `timeoutMs` with the last connection error.
   */
  static async connect(path: string, timeoutMs = 10_000): Promise<QmpClient> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let socket: Socket | undefined;
      try {
        socket = await openSocket(path);
        const client = new QmpClient(socket);
        await client.#handshake(Math.max(1000, deadline - Date.now()));
        return client;
      } catch (error) {
        socket?.destroy();
        if (Date.now() >= deadline) {
          throw new Error(`no QMP answer on ${path} within ${timeoutMs / 1000} s`, {
            cause: error,
          });
        }
        await sleep(100);
      }
    }
  }

  /** Every event received so far, oldest first. */
  get events(): readonly QmpEvent[] {
    return this.#events;
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Runs `command` and resolves with its `return` value; rejects with a QmpError. */
  execute<T = unknown>(
    command: string,
    args?: Readonly<Record<string, unknown>>,
    timeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  ): Promise<T> {
    if (this.#isClosed) {
      return Promise.reject(
        new QmpError(command, "Disconnected", "QEMU closed the QMP connection"),
      );
    }
    const id = `liken-${this.#nextId++}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new QmpError(command, "Timeout", `no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.#pending.set(id, {
        command,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#socket.write(
        `${JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}), id })}\n`,
      );
    });
  }

  /** Calls `listener` for each later event; returns the function that unsubscribes. */
  onEvent(listener: (event: QmpEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The first event named `name` (and accepted by `match`) at index `since` or later of
   * `events`, already received or still to come.
   */
  waitForEvent(
    name: string,
    options: {
      readonly timeoutMs?: number;
      readonly since?: number;
      readonly match?: (event: QmpEvent) => boolean;
    } = {},
  ): Promise<QmpEvent> {
    const accepts = (e: QmpEvent) => e.event === name && (options.match?.(e) ?? true);
    const seen = this.#events.slice(options.since ?? 0).find(accepts);
    if (seen) return Promise.resolve(seen);
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new QmpError(name, "Timeout", `no ${name} event within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const off = this.onEvent((e) => {
        if (!accepts(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  async #handshake(timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no QMP greeting")), timeoutMs);
      this.#greeting = () => {
        clearTimeout(timer);
        resolve();
      };
      void this.closed.then(() => {
        clearTimeout(timer);
        reject(new Error("QMP connection closed before the greeting"));
      });
    });
    await this.execute("qmp_capabilities", undefined, timeoutMs);
  }

  #receive(chunk: string): void {
    this.#buffer += chunk;
    for (let i = this.#buffer.indexOf("\n"); i >= 0; i = this.#buffer.indexOf("\n")) {
      const text = this.#buffer.slice(0, i).trim();
      this.#buffer = this.#buffer.slice(i + 1);
      if (text !== "") this.#message(JSON.parse(text) as Record<string, unknown>);
    }
  }

  #message(message: Record<string, unknown>): void {
    if ("QMP" in message) {
      this.#greeting?.();
      this.#greeting = undefined;
      return;
    }
    if (typeof message.event === "string") {
      const event = message as unknown as QmpEvent;
      this.#events.push(event);
      for (const listener of this.#listeners) listener(event);
      return;
    }
    const id = typeof message.id === "string" ? message.id : undefined;
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (!pending || id === undefined) return;
    this.#pending.delete(id);
    if ("error" in message) {
      const error = message.error as { class?: string; desc?: string };
      pending.reject(
        new QmpError(pending.command, error.class ?? "GenericError", error.desc ?? "failed"),
      );
    } else {
      pending.resolve(message.return);
    }
  }
}

function openSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
