/**
 * Readiness (`GET /readyz`, docs/deploy.md "Probes and metrics"): can this process serve requests
 * now? It can when its database answers a read and its blob store answers a lookup, each within a
 * time limit, so a database that hangs (a network partition) makes the probe fail rather than hang.
 * Liveness (`GET /healthz`) checks nothing outside the process and needs no function here.
 */

/** One dependency's check: whether it answered in time, and if not, why (a sentence, never a secret). */
export interface ReadinessCheck {
  ok: boolean;
  /** Why it failed: the error's message or "no answer within <n> ms". */
  error?: string;
}

/** The answer of `GET /readyz`: ready when every check is ok. */
export interface Readiness {
  ready: boolean;
  checks: { database: ReadinessCheck; blobStore: ReadinessCheck };
}

/** The probes readiness runs: each resolves when its dependency answered, rejects when it failed. */
export interface ReadinessProbes {
  database(): Promise<unknown>;
  blobStore(): Promise<unknown>;
}

/** How long each dependency may take to answer before it counts as unreachable: 2 s. */
export const READINESS_TIMEOUT_MS = 2_000;

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<ReadinessCheck> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([probe().then((): ReadinessCheck => ({ ok: true })), late]);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs both probes at once, each bounded by `timeoutMs`; never throws. */
export async function checkReadiness(probes: ReadinessProbes, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const [database, blobStore] = await Promise.all([check(() => probes.database(), timeoutMs), check(() => probes.blobStore(), timeoutMs)]);
  return { ready: database.ok && blobStore.ok, checks: { database, blobStore } };
}
