/** Ports on loopback for the benches' child processes: a free one, and waiting until a child listens on it. */
import type { ChildProcess } from "node:child_process"
import { connect, createServer } from "node:net"

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** Waits until `child` accepts connections on `port` (it fails if the child exits first). */
export const waitForPort = async (port: number, child: ChildProcess): Promise<void> => {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`port ${port}: the process exited with ${child.exitCode}`)
    const ok = await canConnect(port)
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`port ${port} did not come up`)
}
