// Small page behaviours that work on top of plain links and forms.
document.addEventListener("keydown", function (event) {
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;
  var link = null;
  if (event.key === "ArrowLeft") link = document.getElementById("prev-frame");
  if (event.key === "ArrowRight") link = document.getElementById("next-frame");
  if (link) { event.preventDefault(); location.href = link.href; }
});

document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-copy]");
  if (!button) return;
  var field = document.querySelector(button.dataset.copy);
  field.select();
  var done = function () { button.textContent = "Copied"; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
  else { document.execCommand("copy"); done(); }
});

// "YYYY-MM-DD HH:MM" (or with a "T", as datetime-local writes it) as a local Date; null if it is not one.
// The From/To fields are text so that they read 24-hour in every locale.
window.localDateTime = function (text) {
  var m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::\d{2})?\s*$/.exec(text || "");
  if (!m) return null;
  var date = new Date(+m[1], m[2] - 1, +m[3], +m[4], +m[5]);
  // 2024-02-31 or 25:00 roll over into another day (and years 0-99 read as 1900-1999): not the time meant.
  if (date.getFullYear() !== +m[1] || date.getMonth() !== m[2] - 1 || date.getDate() !== +m[3] || +m[4] > 23 || +m[5] > 59) return null;
  return date;
};

// Search ranges are picked in local time and sent as epoch seconds; a field the script cannot
// read goes as typed, and the server names it.
document.addEventListener("submit", function (event) { epochFields(event.target); }, true);
document.addEventListener("htmx:configRequest", function (event) {
  var form = event.detail.elt.closest && event.detail.elt.closest("form[data-epoch-range]");
  if (!form) return;
  epochFields(form);
  ["start_time", "end_time"].forEach(function (name) {
    var hidden = form.querySelector("input[name=" + name + "]");
    if (hidden) event.detail.parameters[name] = hidden.value;
  });
});
function epochFields(form) {
  if (!form.matches || !form.matches("form[data-epoch-range]")) return;
  [["start", "start_time"], ["end", "end_time"]].forEach(function (pair) {
    var local = form.querySelector("input[name=" + pair[0] + "]");
    var hidden = form.querySelector("input[name=" + pair[1] + "]");
    var date = local && window.localDateTime(local.value);
    if (hidden) hidden.value = date ? String(date.getTime() / 1000) : "";
  });
}
