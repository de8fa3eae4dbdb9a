// The options page: MyRecall's address, a token, the private-window switch, and a connection test
// that reads the privacy rules with the token and has the background send a report of the active tab.
"use strict";

const api = globalThis.browser || globalThis.chrome;
const $ = (id) => document.getElementById(id);

function show(ok, text) {
  $("result").className = ok ? "ok" : "error";
  $("result").textContent = text;
}

function originPattern(address) {
  const url = new URL(address);
  return `${url.protocol}//${url.hostname}/*`;
}

async function load() {
  const stored = await api.storage.local.get(["url", "token", "allowPrivate", "lastStatus", "sent"]);
  $("url").value = stored.url || "http://127.0.0.1:8000";
  $("token").value = stored.token || "";
  $("allowPrivate").checked = stored.allowPrivate === true;
  statusShow(stored);
}

function statusShow(stored) {
  const last = stored.lastStatus;
  if (!last) return;
  const ago = Math.max(0, Math.round((Date.now() - last.at) / 1000));
  $("status").textContent = `Last report ${ago} s ago: ${last.ok ? "received" : "not received: " + last.message}. Reports received since the extension was set up: ${stored.sent || 0}.`;
}

// A chosen address outside the ones the extension may always reach: ask the browser (on the click).
async function permissionFor(address) {
  const origins = [originPattern(address)];
  if (await api.permissions.contains({ origins })) return true;
  return api.permissions.request({ origins });
}

async function save(event) {
  event.preventDefault();
  let address;
  try {
    address = new URL($("url").value.trim());
    if (!["http:", "https:"].includes(address.protocol)) throw new Error("not http");
  } catch (error) {
    show(false, "The address must be an http(s) address such as http://127.0.0.1:8000.");
    return false;
  }
  const url = address.origin + address.pathname.replace(/\/+$/, "");
  if (!(await permissionFor(url))) {
    show(false, `Not saved: the browser did not allow the extension to reach ${address.origin}.`);
    return false;
  }
  await api.storage.local.set({ url, token: $("token").value.trim(), allowPrivate: $("allowPrivate").checked });
  show(true, "Saved.");
  return true;
}

// What the test's first report sent, by the state of the active tab it reported.
const FIRST_REPORT = {
  page: "a first report was sent with the active tab's address and title",
  excluded: "a first report was sent: the active tab is a page your privacy rules exclude, so without its address or title",
  private: "a first report was sent: the active tab is in a private window, so without its address or title",
};

async function test() {
  show(true, "Testing…");
  const { url, token } = await api.storage.local.get(["url", "token"]);
  if (!url || !token) return show(false, "Save an address and a token first.");
  let response;
  try {
    response = await fetch(url + "/api/v1/privacy", { headers: { Authorization: `Bearer ${token}` }, credentials: "omit" });
  } catch (error) {
    return show(false, `Cannot reach ${url}: is MyRecall running there? (${error.message})`);
  }
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    body = null;
  }
  if (response.status === 401) return show(false, "MyRecall refused the token. Make one with `manage.py token_create NAME` and paste the last line it prints.");
  if (!response.ok || !body || !("excluded_urls" in body)) return show(false, `${url} does not look like a MyRecall server (it answered ${response.status}).`);
  const answer = await api.runtime.sendMessage({ type: "myrecall-report-now" });
  if (answer && answer.ok) {
    const rules = body.excluded_urls.length;
    return show(true, `Connected to MyRecall at ${url}: ${FIRST_REPORT[answer.state] || "a first report was sent"}. ${rules} excluded URL pattern(s) apply.`);
  }
  if (answer && answer.code === 403) return show(false, "The token is read-only: it may read but not send reports. Make one without --read-only: `manage.py token_create NAME`.");
  return show(false, `The report was not received: ${(answer && answer.message) || "no answer from the extension"}.`);
}

$("form").addEventListener("submit", save);
$("test").addEventListener("click", test);
api.storage.onChanged.addListener(async () => statusShow(await api.storage.local.get(["lastStatus", "sent"])));
load();
