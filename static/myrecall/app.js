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

// Search ranges are picked in local time and sent as epoch seconds.
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
    if (local && hidden) hidden.value = local.value ? String(new Date(local.value).getTime() / 1000) : "";
  });
}
