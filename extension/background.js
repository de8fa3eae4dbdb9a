// MyRecall's browser extension: tells the MyRecall server which page is the active tab of this
// browser's focused window, so that the capture client's screenshots of the window get the page's
// address, and so that a page the privacy rules exclude is never captured.
//
// One background for both browsers: Chromium runs it as the service worker (importScripts loads the
// rules), Firefox as an event page with rules.js before it (manifest "background.scripts").
//
// It sends POST /api/v1/browser/tab when the active tab, its address or its title changes, and every
// HEARTBEAT_MS while it stays (the server pairs a screenshot with the tab reported at and after its
// time, so a heartbeat lets it settle one within a few seconds). MV3 alarms fire at most every 30 s,
// so the heartbeat is a timer; each beat calls the extension API, which keeps Chromium's service
// worker alive, and a 30 s alarm wakes a background the browser suspended anyway.
"use strict";

if (typeof importScripts === "function") importScripts("rules.js");

const api = globalThis.browser || globalThis.chrome;
const HEARTBEAT_MS = 5000;
const RULES_REFRESH_MS = 60000;
const WAKE_ALARM = "myrecall-wake";
const CLIENT = "myrecall-extension/" + api.runtime.getManifest().version;
const TIMEOUT_MS = 5000;

let settings = null; // {url, token, allowPrivate}
let rules = null; // GET /api/v1/privacy
let rulesAt = 0;
let lastSent = null; // JSON of the last report's state, url, title
let lastSentAt = 0; // when a report was last received (Date.now())
let queue = Promise.resolve(); // reports go one at a time, in order
let browserName = null;

async function settingsLoad() {
  const stored = await api.storage.local.get(["url", "token", "allowPrivate"]);
  settings = {
    url: (stored.url || "").replace(/\/+$/, ""),
    token: stored.token || "",
    allowPrivate: stored.allowPrivate === true,
  };
  return settings;
}

async function nameOfBrowser() {
  if (browserName) return browserName;
  if (api.runtime.getBrowserInfo) {
    const info = await api.runtime.getBrowserInfo(); // Firefox
    browserName = `${info.name} ${info.version}`;
  } else {
    const brands = (navigator.userAgentData && navigator.userAgentData.brands) || [];
    const own = brands.find((b) => !/not.?a.?brand|^chromium$/i.test(b.brand));
    const chromium = brands.find((b) => /^chromium$/i.test(b.brand));
    const pick = own || chromium;
    browserName = pick ? `${pick.brand} ${pick.version}` : "Chromium";
  }
  return browserName;
}

async function request(path, options = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    return await fetch(settings.url + path, {
      ...options,
      headers: { Authorization: `Bearer ${settings.token}`, ...(options.headers || {}) },
      signal: controller.signal,
      credentials: "omit",
    });
  } finally {
    clearTimeout(timer);
  }
}

async function rulesRefresh(force = false) {
  if (!force && rules && Date.now() - rulesAt < RULES_REFRESH_MS) return rules;
  const response = await request("/api/v1/privacy");
  if (!response.ok) throw new Error(`GET /api/v1/privacy answered ${response.status}`);
  rules = await response.json();
  rulesAt = Date.now();
  return rules;
}

async function activeTab() {
  let win;
  try {
    win = await api.windows.getLastFocused({ populate: true, windowTypes: ["normal"] });
  } catch (error) {
    return null; // no window open
  }
  return (win && win.tabs && win.tabs.find((tab) => tab.active)) || null;
}

// What may be said of the active tab: its address and title, or only that it is excluded or private.
async function tabState() {
  const tab = await activeTab();
  if (!tab) return null;
  if (tab.incognito && !settings.allowPrivate) return { state: "private" };
  const url = tab.url || tab.pendingUrl || "";
  if (!url) return null; // a tab the extension may not read
  const title = tab.title || "";
  let known;
  try {
    known = await rulesRefresh();
  } catch (error) {
    known = rules; // the last rules read; with none, the server applies its own to what it is sent
  }
  if (globalThis.MyRecallRules.tabExclusion(known, url, title)) return { state: "excluded" };
  return { state: "page", url, title };
}

async function statusSave(status) {
  const stored = await api.storage.local.get(["sent"]);
  await api.storage.local.set({ sent: (stored.sent || 0) + (status.ok ? 1 : 0), lastStatus: { ...status, at: Date.now() } });
}

async function reportNow(why) {
  if (!settings) await settingsLoad();
  if (!settings.url || !settings.token) return { ok: false, message: "Not set up: give MyRecall's address and a token on the options page." };
  const state = await tabState();
  if (!state) return { ok: false, message: "No tab to report." };
  const key = JSON.stringify(state);
  if (why === "change" && key === lastSent) return { ok: true, message: "unchanged" };
  const body = { browser: await nameOfBrowser(), ...state, at: Date.now() / 1000, client: CLIENT };
  let status;
  try {
    const response = await request("/api/v1/browser/tab", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let answer = {};
    try {
      answer = await response.json();
    } catch (error) {
      answer = { message: "the answer was not JSON: is this MyRecall's address?" };
    }
    status = { ok: response.ok, code: response.status, message: answer.message || "", state: answer.state || state.state };
    if (response.ok) {
      lastSent = key;
      lastSentAt = Date.now();
      if (answer.state && answer.state !== state.state) rulesRefresh(true).catch(() => {}); // the server's rules differ from ours
    }
  } catch (error) {
    status = { ok: false, code: 0, message: `cannot reach ${settings.url} (${error.name === "AbortError" ? "timed out" : error.message})` };
  }
  await statusSave(status);
  return status;
}

function report(why) {
  queue = queue.then(() => reportNow(why)).catch((error) => ({ ok: false, message: String(error) }));
  return queue;
}

api.tabs.onActivated.addListener(() => report("change"));
api.tabs.onUpdated.addListener((tabId, change, tab) => {
  if (tab.active && (change.url || change.title !== undefined || change.status)) report("change");
});
api.windows.onFocusChanged.addListener((windowId) => {
  if (windowId !== api.windows.WINDOW_ID_NONE) report("change");
});
api.storage.onChanged.addListener((changes, area) => {
  if (area === "local" && (changes.url || changes.token || changes.allowPrivate)) {
    rules = null;
    lastSent = null;
    settingsLoad().then(() => report("change"));
  }
});
api.alarms.onAlarm.addListener((alarm) => {
  // Wakes a background the browser suspended; while the timer runs it has nothing to add.
  if (alarm.name === WAKE_ALARM && Date.now() - lastSentAt >= HEARTBEAT_MS) report("heartbeat");
});
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (message && message.type === "myrecall-report-now") {
    lastSent = null;
    rules = null;
    settingsLoad().then(() => report("test")).then(sendResponse);
    return true; // answered asynchronously
  }
  return false;
});

api.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
setInterval(() => report("heartbeat"), HEARTBEAT_MS);
settingsLoad().then(() => report("change"));
