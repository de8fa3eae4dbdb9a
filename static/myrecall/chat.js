// The chat page. A summary streams as server-sent events read with fetch() from
// POST /api/v1/chat: the page is one more client of the endpoint API clients use, so there is
// one code path (range checks, citation validation, storage) for both. An agent answer streams
// over the websocket ws/chat/agent/ (the same turn and events as the API's SSE stream): its
// text as it is written, each tool call as a step that opens to show what came back, then the
// answer with its evidence, like a summary; Abort stops it.
// Model and tool text only ever goes in as textContent; the one HTML taken from the server is
// the final answer_html, which chat/rendering.py has sanitised.
(function () {
  "use strict";
  var root = document.getElementById("chat");
  var form = document.getElementById("chat-form");
  if (!root || !form) return;
  var conversation = document.getElementById("conversation");
  var formError = document.getElementById("chat-form-error");
  var send = form.querySelector("button[type=submit]");
  var textarea = form.elements.message;
  var sessionId = root.dataset.sessionId ? Number(root.dataset.sessionId) : null;
  var busy = false;
  var abort = document.getElementById("chat-abort");
  var agentTurn = null;  // {answer, turnId, done} of the agent turn in progress
  var socket = null;

  function pad(n) { return String(n).padStart(2, "0"); }
  function hhmm(date) { return pad(date.getHours()) + ":" + pad(date.getMinutes()); }
  // What the From/To fields hold: "YYYY-MM-DD HH:MM", 24-hour (read back by app.js's localDateTime).
  function inputValue(date) {
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + " " + hhmm(date);
  }
  function midnight(date, days) { return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days); }
  function dayLabel(date) {
    return date.toLocaleDateString("en-GB", { weekday: "short", day: "numeric", month: "short" }).replace(",", "");
  }
  // "Mon 6 May 14:00–17:00", like the server's label of a stored question.
  function rangeLabel(start, end) {
    if (start.toDateString() === end.toDateString()) return dayLabel(start) + " " + hhmm(start) + "–" + hhmm(end);
    return dayLabel(start) + " " + hhmm(start) + " – " + dayLabel(end) + " " + hhmm(end);
  }

  function preset() { return form.querySelector("input[name=preset]:checked").value; }
  function mode() { return form.querySelector("input[name=mode]:checked").value; }

  // The chosen range as [start, end] Dates, read at this moment in the browser's local time.
  function chosenRange(now) {
    switch (preset()) {
      case "any": return [null, null];
      case "hour": return [new Date(now.getTime() - 3600 * 1000), now];
      case "today": return [midnight(now, 0), now];
      case "yesterday": return [midnight(now, -1), midnight(now, 0)];
    }
    var start = form.elements.start.value, end = form.elements.end.value;
    return [start ? window.localDateTime(start) : null, end.trim() ? window.localDateTime(end) : now];
  }

  // A preset shows its range in the From/To fields; editing them means a custom range.
  function showPreset() {
    root.classList.toggle("agent-mode", mode() === "agent");
    if (mode() === "summary" && preset() === "any") form.querySelector("input[name=preset][value=hour]").checked = true;
    if (preset() === "any") { form.elements.start.value = ""; form.elements.end.value = ""; return; }
    if (preset() === "custom") return;
    var range = chosenRange(new Date());
    form.elements.start.value = inputValue(range[0]);
    form.elements.end.value = inputValue(range[1]);
  }
  form.addEventListener("change", function (event) {
    if (event.target.name === "preset" || event.target.name === "mode") showPreset();
  });
  // As soon as a field is typed in, not once it loses focus: a question sent from there asks about it.
  form.addEventListener("input", function (event) {
    if (event.target.name === "start" || event.target.name === "end") {
      form.querySelector("input[name=preset][value=custom]").checked = true;
    }
  });
  showPreset();

  textarea.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  function fromTemplate(id) { return document.getElementById(id).content.firstElementChild.cloneNode(true); }

  function setError(message) {
    formError.textContent = message;
    formError.hidden = !message;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (busy) return;
    var question = textarea.value.trim();
    if (!question) return;
    var range = chosenRange(new Date());
    var anyTime = mode() === "agent" && preset() === "any";
    if (!anyTime) {
      if (!form.elements.start.value.trim()) return setError("Pick when the range starts.");
      if (!range[0]) return setError("“From” is not a date and time: write it as YYYY-MM-DD HH:MM, 24-hour (2024-05-06 14:30).");
      if (!range[1]) return setError("“To” is not a date and time: write it as YYYY-MM-DD HH:MM, 24-hour, or leave it empty for now.");
      if (range[1] <= range[0]) return setError("The end of the range is before its start.");
    }
    setError("");
    var body = {
      message: question,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      mode: mode(),
    };
    if (!anyTime) {
      body.start_time = range[0].getTime() / 1000;
      body.end_time = range[1].getTime() / 1000;
    }
    if (sessionId) body.session_id = sessionId;
    if (form.elements.app.value && body.mode === "summary") body.app_name = form.elements.app.value;

    var asked = fromTemplate("question-template");
    var label = anyTime ? "Any time" : rangeLabel(range[0], range[1]);
    asked.querySelector(".range").textContent = (body.mode === "agent" ? "Agent · " : "") + label + (body.app_name ? " · " + body.app_name : "");
    asked.querySelector(".question-text").textContent = question;
    var answer = fromTemplate("answer-template");
    answer.question = question;  // put back in the box if the answer fails, to send again
    answer.asked = asked;
    conversation.append(asked, answer);
    var intro = document.querySelector(".chat-intro");
    if (intro) intro.remove();
    answer.scrollIntoView({ block: "nearest" });
    textarea.value = "";
    setBusy(true);
    (body.mode === "agent" ? askAgent(body, answer) : ask(body, answer)).finally(function () {
      setBusy(false);
      textarea.focus();
    });
  });

  function setBusy(value) {
    busy = value;
    send.disabled = value;
    send.textContent = value ? "Answering…" : "Send";
    root.classList.toggle("busy", value);
    abort.hidden = !(value && mode() === "agent");
    abort.disabled = false;
  }

  abort.addEventListener("click", function () {
    if (!agentTurn || !agentTurn.turnId || !socket) return;
    abort.disabled = true;
    socket.send(JSON.stringify({ action: "abort", turn_id: agentTurn.turnId }));
  });

  // The agent's socket, opened on first use and kept; a turn in progress fails if it closes.
  function agentSocket() {
    if (socket && socket.readyState <= 1) return Promise.resolve(socket);
    return new Promise(function (resolve, reject) {
      var scheme = location.protocol === "https:" ? "wss://" : "ws://";
      var opened = new WebSocket(scheme + location.host + "/ws/chat/agent/");
      opened.onopen = function () { socket = opened; resolve(opened); };
      opened.onerror = function () { reject(new Error("the live connection could not be opened")); };
      opened.onclose = function () {
        if (socket === opened) socket = null;
        if (agentTurn && !agentTurn.done) agentTurn.fail("The live connection closed before the answer finished; ask again.");
      };
      opened.onmessage = function (message) {
        var item = JSON.parse(message.data);
        if (agentTurn) agentTurn.onEvent(item.event, item.data);
      };
    });
  }

  function askAgent(body, answer) {
    return new Promise(function (resolve) {
      var steps = document.createElement("ol");
      steps.className = "steps";
      answer.querySelector(".answer-body").before(steps);
      answer.querySelector(".answer-meta").textContent = "The agent is working…";
      var byCall = {};
      var turn = agentTurn = {
        answer: answer, turnId: null, done: false,
        fail: function (message) { if (!turn.done) { turn.done = true; fail(answer, message); resolve(); } },
        onEvent: function (name, data) {
          if (name === "start") {
            turn.turnId = data.turn_id;
            remember(data.session_id);
            answer.dataset.messageId = data.message_id;
          } else if (name === "message_update") {
            var update = data.assistantMessageEvent || {};
            if (update.type === "text_delta") follow(function () { answer.querySelector(".streaming").textContent += update.delta; });
          } else if (name === "message_start" && data.message && data.message.role === "assistant") {
            // Each new message of the model starts afresh: text written before a tool call was not the answer.
            answer.querySelector(".streaming").textContent = "";
          } else if (name === "tool_execution_start") {
            var step = fromTemplate("step-template");
            step.querySelector(".tool").textContent = data.toolName === "bash" ? "Ran" : data.toolName === "read" ? "Read" : data.toolName;
            var args = data.args || {};
            step.querySelector(".command").textContent = args.command || args.path || JSON.stringify(args);
            byCall[data.toolCallId] = step;
            follow(function () { steps.append(step); });
          } else if (name === "tool_execution_end") {
            var done = byCall[data.toolCallId];
            if (!done) return;
            var parts = ((data.result || {}).content || []).filter(function (p) { return p && p.type === "text"; });
            var text = parts.map(function (p) { return p.text; }).join("");
            var shown = readable(text);
            done.querySelector(".result").textContent = shown.length > 4000 ? shown.slice(0, 4000) + "…" : shown;
            done.querySelector(".state").textContent = data.isError ? "failed" : shortResult(text);
            done.querySelector(".step").classList.toggle("failed", !!data.isError);
          } else if (name === "final") {
            turn.done = true;
            follow(function () { finish(answer, data); });
            resolve();
          } else if (name === "error") {
            remember(data.session_id);
            turn.fail(data.message);
          }
        },
      };
      agentSocket().then(function (open) {
        open.send(JSON.stringify(Object.assign({ action: "ask" }, body)));
      }, function (error) {
        turn.fail("MyRecall could not be reached (" + error.message + ").");
      });
    });
  }

  // A tool's output as a person reads it: search results one per line (time, app, window, the
  // start of the text); other JSON indented; anything else as it came.
  function readable(text) {
    var parsed;
    try { parsed = JSON.parse(text); } catch (error) { return text; }
    if (parsed && Array.isArray(parsed.data)) {
      return parsed.data.map(function (item) {
        var c = item.content || item;
        var at = c.timestamp ? new Date(c.timestamp) : null;
        var when = at && !isNaN(at.getTime()) ? hhmm(at) : "";
        var where = [c.app_name, c.window_name].filter(Boolean).join(" — ");
        var words = String(c.text || "").replace(/\s+/g, " ").slice(0, 140);
        return ["#" + c.frame_id, when, where].filter(Boolean).join("  ") + (words ? "\n    " + words : "");
      }).join("\n") || "no results";
    }
    return JSON.stringify(parsed, null, 1);
  }

  // What a search returned, in a few words: "3 results" for MyRecall's search, else its size.
  function shortResult(text) {
    try {
      var parsed = JSON.parse(text);
      if (parsed && Array.isArray(parsed.data)) {
        var total = parsed.pagination && typeof parsed.pagination.total === "number" ? parsed.pagination.total : parsed.data.length;
        return parsed.data.length + " result" + (parsed.data.length === 1 ? "" : "s") + (total > parsed.data.length ? " of " + total : "");
      }
    } catch (error) { /* not JSON */ }
    var lines = text ? text.split("\n").length : 0;
    return lines ? lines + " line" + (lines === 1 ? "" : "s") : "no output";
  }

  async function ask(body, answer) {
    var response;
    try {
      response = await fetch("/api/v1/chat", {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "Accept": "text/event-stream",
          "X-CSRFToken": form.elements.csrfmiddlewaretoken.value,
        },
        body: JSON.stringify(body),
      });
    } catch (error) {
      return fail(answer, "MyRecall could not be reached (" + error.message + ").");
    }
    var type = response.headers.get("Content-Type") || "";
    if (!response.ok || type.indexOf("text/event-stream") !== 0) {
      var message = "The question could not be sent (HTTP " + response.status + ").";
      try {
        var data = await response.json();
        if (data && typeof data.message === "string") message = data.message;
      } catch (error) { /* not JSON: keep the status line */ }
      // Refused as asked (4xx): nothing was stored, so the turn goes and the question waits in the box.
      if (response.status >= 400 && response.status < 500) return refused(answer, message);
      return fail(answer, message);
    }
    var finished = false;
    try {
      await readEvents(response.body, function (name, data) {
        if (name === "start") started(answer, data);
        else if (name === "delta") follow(function () { answer.querySelector(".streaming").textContent += data.text; });
        else if (name === "final") { finished = true; follow(function () { finish(answer, data); }); }
        else if (name === "error") { finished = true; remember(data.session_id); fail(answer, data.message); }
      });
    } catch (error) {
      if (!finished) { finished = true; fail(answer, "The answer broke off (" + error.message + ")."); }
    }
    if (!finished) fail(answer, "The answer stopped before it finished; ask again.");
  }

  // While an answer grows, keep its end in view, unless the person scrolled up to read.
  function follow(update) {
    var page = document.documentElement;
    var atBottom = window.innerHeight + window.scrollY >= page.scrollHeight - 80;
    update();
    if (atBottom) window.scrollTo(0, page.scrollHeight);
  }

  // Server-sent events: blocks separated by a blank line, "event:" and "data:" fields,
  // lines starting with ":" are keepalive comments.
  async function readEvents(stream, onEvent) {
    var reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += chunk.value;
      var blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
      buffer = blocks.pop();
      blocks.forEach(function (block) { dispatch(block, onEvent); });
    }
    if (buffer.trim()) dispatch(buffer, onEvent);
  }

  function dispatch(block, onEvent) {
    var name = "message";
    var data = [];
    block.split("\n").forEach(function (line) {
      if (!line || line[0] === ":") return;
      var colon = line.indexOf(":");
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") name = value;
      else if (field === "data") data.push(value);
    });
    if (data.length) onEvent(name, JSON.parse(data.join("\n")));
  }

  function started(answer, data) {
    remember(data.session_id);
    answer.dataset.messageId = data.message_id;
    answer.querySelector(".answer-meta").textContent = framesLine(data);
  }

  function framesLine(data) {
    if (data.tool_calls !== undefined && data.tool_calls !== null) {
      return [data.model, data.tool_calls + " tool call" + (data.tool_calls === 1 ? "" : "s")].filter(Boolean).join(" · ");
    }
    if (data.frames_in_range === undefined) return data.model || "";
    var read = data.frames_sampled < data.frames_in_range
      ? data.frames_sampled + " of " + data.frames_in_range + " screens read"
      : data.frames_in_range + " screen" + (data.frames_in_range === 1 ? "" : "s") + " read";
    return [data.model, read].filter(Boolean).join(" · ");
  }

  // Follow-up questions continue this chat; the address opens it again.
  function remember(id) {
    if (!id || id === sessionId) return;
    sessionId = id;
    root.dataset.sessionId = String(id);
    history.replaceState(null, "", "?session=" + encodeURIComponent(id));
    var list = document.getElementById("session-list");
    var empty = list.querySelector(".empty");
    if (empty) empty.remove();
    list.querySelectorAll("a[aria-current]").forEach(function (link) { link.removeAttribute("aria-current"); });
    var link = document.createElement("a");
    link.setAttribute("href", "?session=" + encodeURIComponent(id));
    link.setAttribute("aria-current", "page");
    var title = document.createElement("span");
    title.className = "title";
    title.textContent = conversation.querySelector(".question-text").textContent;
    document.getElementById("chat-title").textContent = title.textContent;
    link.append(title);
    var item = document.createElement("li");
    item.append(link);
    list.prepend(item);
  }

  function finish(answer, data) {
    var body = answer.querySelector(".answer-body");
    // Sanitised server-side (chat/rendering.py): the one HTML this page takes from the server.
    body.innerHTML = data.answer_html;
    if (data.dropped && data.dropped.length) {
      var dropped = document.createElement("p");
      dropped.className = "dropped";
      dropped.textContent = droppedLine(data.dropped);
      body.after(dropped);
    }
    if (data.evidence && data.evidence.length) {
      var list = document.createElement("ul");
      list.className = "evidence";
      data.evidence.forEach(function (item) { list.append(evidenceItem(item)); });
      answer.querySelector(".answer-meta").before(list);
    }
    answer.querySelector(".answer-meta").textContent = framesLine(data);
  }

  // "2 citations dropped: outside range", like the server's label.
  function droppedLine(dropped) {
    var counts = {};
    dropped.forEach(function (item) { counts[item.reason] = (counts[item.reason] || 0) + 1; });
    var reasons = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a]; });
    return dropped.length + " citation" + (dropped.length === 1 ? "" : "s") + " dropped: " + reasons.join(", ");
  }

  // Only links into this site: an address from the data never becomes a javascript: link.
  function localPath(url) { return typeof url === "string" && /^\/(?!\/)/.test(url) ? url : ""; }

  function evidenceItem(item) {
    var node = fromTemplate("evidence-template");
    var link = node.querySelector("a");
    link.setAttribute("href", localPath(item.viewer_url));
    link.setAttribute("data-frame-id", String(item.frame_id));
    link.setAttribute("title", item.window_name || "");
    node.querySelector("img").setAttribute("src", localPath(item.thumb_url));
    node.querySelector("time").setAttribute("datetime", item.local_time);
    // The clock of the zone the answer was written in (local_time is "YYYY-MM-DDTHH:MM:SS+hh:mm").
    node.querySelector("time").textContent = item.local_time.slice(11, 16);
    node.querySelector(".app").textContent = item.app_name || "unknown app";
    return node;
  }

  function refused(answer, message) {
    answer.asked.remove();
    answer.remove();
    setError(message);
    if (!textarea.value.trim()) textarea.value = answer.question;
  }

  function fail(answer, message) {
    if (!textarea.value.trim()) textarea.value = answer.question;
    answer.classList.add("failed");
    var body = answer.querySelector(".answer-body");
    var partial = body.querySelector(".streaming");
    var error = document.createElement("p");
    error.className = "error";
    error.textContent = message;
    body.replaceChildren();
    // What was written before it failed stays visible, as text.
    if (partial && partial.textContent) body.append(partial);
    body.append(error);
    answer.querySelector(".answer-meta").textContent = "";
  }
})();
