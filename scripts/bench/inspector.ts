export type InspectorSend = (method: string, params?: object) => Promise<Record<string, unknown>>;

/**
 * One DevTools-protocol session on the API Worker's isolate, through the inspector Miniflare opens
 * with `inspectorPort` (scripts/bench/worker.ts `serve`): the CPU profile of `npm run profile`, the
 * heap figures of `npm run soak`.
 */
export async function connectInspector(port: number, worker = "api"): Promise<InspectorSend> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { id: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.id.endsWith(`:${worker}`));
  if (!target) throw new Error(`no inspector target for the ${worker} Worker among ${targets.map((t) => t.id).join(", ")}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
    const call = message.id === undefined ? undefined : waiting.get(message.id);
    if (!call || message.id === undefined) return;
    waiting.delete(message.id);
    if (message.error) call.reject(new Error(`inspector: ${JSON.stringify(message.error)}`));
    else call.resolve(message.result ?? {});
  });
  return (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
}
