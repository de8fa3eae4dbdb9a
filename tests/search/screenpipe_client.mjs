// Runs screenpipe's own JS client (@screenpipe/js pipe.queryScreenpipe) against a MyRecall test server.
//
// usage: node screenpipe_client.mjs TARGET_ORIGIN TOKEN QUERIES_JSON
//
// The client hard-codes http://localhost:3030 and sends no Authorization header, so Node's fetch
// gets a dispatcher that sends its requests for that origin to TARGET_ORIGIN with the bearer
// TOKEN (none when TOKEN is empty). Requests for any other origin (its analytics) are refused
// here and listed, never sent. Prints one JSON line: {"results": [{ok, result | error}], "refused": [...]}.
import { Agent, setGlobalDispatcher } from "undici";
import { pipe } from "@screenpipe/js";

const SCREENPIPE_ORIGIN = "http://localhost:3030";
const [target, token, queriesJson] = process.argv.slice(2);
const refused = [];

function withBearer(headers) {
  if (!token) return headers;
  if (Array.isArray(headers)) return [...headers, "authorization", `Bearer ${token}`];
  return { ...(headers || {}), authorization: `Bearer ${token}` };
}

class ToTestServer extends Agent {
  dispatch(options, handler) {
    const origin = new URL(String(options.origin)).origin;
    if (origin !== SCREENPIPE_ORIGIN) {
      refused.push(`${origin}${options.path || ""}`);
      queueMicrotask(() => handler.onError(new Error(`refused in tests: ${origin}`)));
      return true;
    }
    return super.dispatch({ ...options, origin: target, headers: withBearer(options.headers) }, handler);
  }
}

setGlobalDispatcher(new ToTestServer());

const results = [];
for (const params of JSON.parse(queriesJson)) {
  try {
    results.push({ ok: true, result: await pipe.queryScreenpipe(params) });
  } catch (error) {
    results.push({ ok: false, error: String(error && error.message ? error.message : error) });
  }
}
process.stdout.write(JSON.stringify({ results, refused }) + "\n");
// The analytics library may keep timers alive; the answers are in.
process.exit(0);
