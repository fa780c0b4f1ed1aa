/**
 * The faults, each recorded as a window of wall-clock time (epoch ms) that the checks set
 * against the clients' outcomes and HAProxy's log.
 */
import type { Load } from './load.ts'
import { sleep, type Node, type Nodes, type Postgres } from './cluster.ts'

export interface FaultWindow {
  name: 'rolling restart' | 'kill -9' | 'PostgreSQL restart'
  startedAt: number
  endedAt: number
  /** kill -9: the node and the instant it was killed. */
  node?: string
  killedAt?: number
}

/** HAProxy marks a node up after `rise 2` checks `inter 1s` apart: a little more than that. */
const BALANCER_NOTICE_MS = 2500

/** SIGTERM each node in turn (it drains, then exits), start it again, and let the balancer see it up before the next. */
export async function rollingRestart(nodes: Nodes): Promise<FaultWindow> {
  const startedAt = Date.now()
  for (const node of nodes.list) {
    await nodes.stop(node)
    await nodes.start(node)
    await sleep(BALANCER_NOTICE_MS)
  }
  return { name: 'rolling restart', startedAt, endedAt: Date.now() }
}

/** Waits (at most `ms`) until bulk-sends and signers are in flight, so the kill cuts them. */
async function untilBusy(load: Load, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline && !((load.state.inFlight.bulk ?? 0) > 0 && (load.state.inFlight.sign ?? 0) > 0)) await sleep(20)
}

/** `kill -9` of `node` in the middle of bulk-sends and finishes, then start it again. */
export async function killAndRestart(nodes: Nodes, node: Node, load: Load): Promise<FaultWindow> {
  await untilBusy(load, 10_000)
  const killedAt = Date.now()
  await nodes.kill(node)
  await sleep(2000)
  await nodes.start(node)
  await sleep(BALANCER_NOTICE_MS)
  return { name: 'kill -9', node: node.name, startedAt: killedAt, endedAt: Date.now(), killedAt }
}

/**
 * `pg_ctl restart -m fast`, then wait until every node answers /healthz (its pool reconnected).
 * A node that died of it is started again, inside the window: its requests' failures belong to this fault.
 */
export async function restartPostgres(postgres: Postgres, nodes: Nodes): Promise<FaultWindow & { recoveredMs: number; died: string[] }> {
  const startedAt = Date.now()
  await postgres.restart()
  const restartedAt = Date.now()
  const deadline = restartedAt + 30_000
  for (const node of nodes.list) {
    while (Date.now() < deadline && node.process) {
      const status = await fetch(`http://127.0.0.1:${node.port}/healthz`, { signal: AbortSignal.timeout(2000) })
        .then(async (r) => (await r.arrayBuffer(), r.status))
        .catch(() => 0)
      if (status === 200) break
      await sleep(100)
    }
  }
  const recoveredMs = Date.now() - restartedAt
  const died = nodes.list.filter((n) => !n.process)
  for (const node of died) await nodes.start(node)
  await sleep(BALANCER_NOTICE_MS)
  return { name: 'PostgreSQL restart', startedAt, endedAt: Date.now(), recoveredMs, died: died.map((n) => n.name) }
}
