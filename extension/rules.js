// MyRecall's privacy rules, matched as the server matches them (myrecall/privacy_rules.py): a pattern
// with * (any text) or ? (one character) must match the whole value; one without matches anywhere in
// it; letter case never counts. Loaded by the background (both browsers) and by tests under Node.
"use strict";

(function (root) {
  // Python's casefold() for what titles and addresses hold; toLowerCase() leaves these apart.
  function casefold(text) {
    return String(text).toLowerCase().replace(/ß/g, "ss").replace(/ς/g, "σ");
  }

  function globToRegExp(pattern) {
    let source = "";
    for (const char of pattern) {
      if (char === "*") source += "[\\s\\S]*";
      else if (char === "?") source += "[\\s\\S]";
      else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    }
    return new RegExp("^" + source + "$", "u");
  }

  function patternMatches(pattern, value, whole = false) {
    const p = casefold(String(pattern || "").trim());
    const v = casefold(value || "");
    if (!p || !v) return false;
    if (p.includes("*") || p.includes("?")) return globToRegExp(p).test(v);
    return whole ? v === p : v.includes(p);
  }

  // The rule that excludes a tab with this address and title, or null: URL rules on the address,
  // window-title rules on the tab's title (the window shows it).
  function tabExclusion(rules, url, title) {
    for (const pattern of (rules && rules.excluded_urls) || []) {
      if (patternMatches(pattern, url)) return { kind: "url", pattern };
    }
    for (const pattern of (rules && rules.excluded_windows) || []) {
      if (patternMatches(pattern, title)) return { kind: "window", pattern };
    }
    return null;
  }

  root.MyRecallRules = { patternMatches, tabExclusion };
})(globalThis);
