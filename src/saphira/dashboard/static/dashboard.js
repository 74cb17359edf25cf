// Saphira dashboard: live rows from the server's event stream, and the project
// switcher's submit on change. Plain JavaScript, no build step, no other origin.
"use strict";

function liveTable(table) {
  const body = table.tBodies[0];
  const status = document.getElementById("live");
  const empty = document.getElementById("empty");
  let since = table.dataset.since || "";
  let source = null;

  function say(text) { if (status) { status.textContent = text; } }

  function place(data) {
    const old = document.getElementById("server-" + data.id);
    if (data.deleted) {
      if (old) { old.remove(); }
    } else {
      const holder = document.createElement("tbody");
      holder.innerHTML = data.html;
      const row = holder.querySelector("tr");
      if (old) { old.replaceWith(row); } else { body.prepend(row); }
    }
    if (data.updated > since) { since = data.updated; }
    if (empty) { empty.hidden = body.rows.length > 0; }
  }

  function open() {
    source = new EventSource(table.dataset.feed + "?since=" + encodeURIComponent(since));
    source.addEventListener("row", (e) => { say(""); place(JSON.parse(e.data)); });
    source.addEventListener("problem", (e) => { say(JSON.parse(e.data).message); });
    source.addEventListener("end", () => {
      source.close();
      say("Live updates stopped: your session has ended. Reload to log in again.");
    });
    source.onerror = () => { say("Reconnecting the live view…"); };
    source.onopen = () => { say(""); };
  }
  open();
  window.addEventListener("pagehide", () => { if (source) { source.close(); } });
}

document.addEventListener("DOMContentLoaded", () => {
  const table = document.getElementById("instances");
  if (table && window.EventSource) { liveTable(table); }
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.requestSubmit());
  }
});
