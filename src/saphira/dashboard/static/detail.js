// Saphira dashboard, an instance's page: its facts, actions and action history
// from the server's event stream, a snapshot's progress, and the serial console
// (a websocket of raw bytes shown as text; a line sent on Enter). Plain JavaScript.
"use strict";

function liveDetail(facts) {
  const status = document.getElementById("live");
  let source = null;

  function say(text) { if (status) { status.textContent = text; } }
  function fill(id, html) {
    const node = document.getElementById(id);
    if (node && html !== undefined) { node.innerHTML = html; }
  }

  source = new EventSource(facts.dataset.feed);
  source.addEventListener("server", (e) => {
    const data = JSON.parse(e.data);
    say("");
    fill("facts", data.facts);
    fill("actions", data.actions);
    fill("history-body", data.history);
  });
  source.addEventListener("history", (e) => { fill("history-body", JSON.parse(e.data).history); });
  source.addEventListener("image", (e) => { fill("snapshot", JSON.parse(e.data).html); });
  source.addEventListener("problem", (e) => { say(JSON.parse(e.data).message); });
  source.addEventListener("gone", (e) => {
    source.close();
    say(JSON.parse(e.data).message);
    fill("actions", "");
  });
  source.addEventListener("end", () => {
    source.close();
    say("Live updates stopped: your session has ended. Reload to log in again.");
  });
  source.onerror = () => { say("Reconnecting the live view…"); };
  window.addEventListener("pagehide", () => { source.close(); });
}

// Escape sequences (colours, cursor moves) are dropped: the text is what is shown.
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][A-Za-z0-9]|\r(?!\n)/g;

function serialConsole(screen) {
  const input = document.getElementById("serial-input");
  const state = document.getElementById("serial-state");
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const socket = new WebSocket(screen.dataset.url, ["binary"]);
  socket.binaryType = "arraybuffer";

  let opened = false;
  function say(text) { if (state) { state.textContent = text; } }
  socket.onopen = () => { opened = true; say("Connected."); };
  socket.onmessage = (e) => {
    const text = typeof e.data === "string" ? e.data : decoder.decode(e.data, { stream: true });
    screen.textContent = (screen.textContent + text.replace(ANSI, "")).slice(-20000);
    screen.scrollTop = screen.scrollHeight;
  };
  socket.onclose = () => {
    say(opened ? "The serial console closed. Reload the page to open it again."
               : "The serial console could not be reached: its proxy refused or did not answer.");
  };
  input.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || socket.readyState !== WebSocket.OPEN) { return; }
    e.preventDefault();
    socket.send(encoder.encode(input.value + "\r"));
    input.value = "";
  });
  window.addEventListener("pagehide", () => { socket.close(); });
}

document.addEventListener("DOMContentLoaded", () => {
  const facts = document.getElementById("facts");
  if (facts && facts.dataset.feed && window.EventSource) { liveDetail(facts); }
  const screen = document.getElementById("serial");
  if (screen && screen.dataset.url && window.WebSocket) { serialConsole(screen); }
});
