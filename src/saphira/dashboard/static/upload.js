// Saphira dashboard: an image upload's three steps, each shown as it happens:
// the browser's own upload to the dashboard (XMLHttpRequest's progress), the
// dashboard's upload to the image service, then the wait for "active" (both
// from the upload's event stream). Plain JavaScript, no build, no other origin.
"use strict";

(function () {
  const UNITS = ["KiB", "MiB", "GiB", "TiB"];

  function size(n) {
    if (n < 1024) { return n + " bytes"; }
    let value = n;
    let unit = -1;
    while (value >= 1024 && unit < UNITS.length - 1) { value /= 1024; unit += 1; }
    return value.toFixed(1) + " " + UNITS[unit];
  }

  // The signatures image_formats.py looks for (Glance's format inspector's), read
  // from the chosen file before it is sent, so the person sees the guess and can
  // choose otherwise; the dashboard detects again from what it receives.
  const AT_START = [["QFI\xfb", "qcow2"], ["KDMV", "vmdk"], ["vhdxfile", "vhdx"], ["conectix", "vhd"]];

  function has(bytes, offset, text) {
    if (bytes.length < offset + text.length) { return false; }
    for (let i = 0; i < text.length; i += 1) {
      if (bytes[offset + i] !== text.charCodeAt(i)) { return false; }
    }
    return true;
  }

  function detect(head, tail) {
    for (const [magic, name] of AT_START) { if (has(head, 0, magic)) { return name; } }
    if (head.length >= 0x44 && new DataView(head.buffer).getUint32(0x40, true) === 0xbeda107f) {
      return "vdi";
    }
    if ([0x8001, 0x8801, 0x9001].some((at) => has(head, at, "CD001"))) { return "iso"; }
    if (tail.length >= 512 && has(tail, tail.length - 512, "conectix")) { return "vhd"; }
    return "raw";
  }

  async function guess(file) {
    const head = new Uint8Array(await file.slice(0, 65536).arrayBuffer());
    const tail = new Uint8Array(await file.slice(Math.max(0, file.size - 512)).arrayBuffer());
    return detect(head, tail);
  }

  function watchFile(form) {
    const option = form.elements.disk_format.querySelector("option[value='']");
    form.elements.file.addEventListener("change", () => {
      const file = form.elements.file.files[0];
      option.textContent = "Detect from the file";
      if (!file || !file.slice) { return; }
      guess(file).then((name) => {
        option.textContent = "Detect from the file (it looks like " + name.toUpperCase() + ")";
      }).catch(() => {});
    });
  }

  function percent(done, total) { return total > 0 ? Math.floor((100 * done) / total) : 100; }

  function byId(id) { return document.getElementById(id); }

  function bar(step, done, total) {
    const pct = percent(done, total);
    byId(step + "-bar").value = pct;
    byId(step + "-text").textContent = size(done) + " of " + size(total) + " (" + pct + " %)";
  }

  function status(text) { byId("image-status").textContent = text; }

  function problem(text) { byId("upload-message").textContent = text; }

  function finished(detail) {
    const done = byId("upload-done");
    if (done && detail) { byId("image-link").href = detail; done.hidden = false; }
  }

  function follow(url, detail, onEnd) {
    const source = new EventSource(url);
    source.addEventListener("progress", (event) => {
      const p = JSON.parse(event.data);
      bar("store", p.sent, p.total);
      if (p.phase === "waiting") { status("uploaded; the image is " + p.status); }
      if (p.phase === "active") { status("active"); source.close(); finished(detail); onEnd(); }
      if (p.phase === "failed") { status("failed"); problem(p.message); source.close(); onEnd(); }
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) { problem("Lost the upload's progress; see the image's page."); }
    };
  }

  function send(form) {
    const file = form.elements.file.files[0];
    const submit = byId("submit");
    const refused = byId("problem");
    if (!file) { return; }
    if (file.size > Number(form.dataset.cap)) {
      refused.textContent = "That file is larger than the dashboard accepts (at most " + form.dataset.capText + ").";
      return;
    }
    refused.textContent = "";
    problem("");
    const section = byId("upload-progress");
    section.hidden = false;
    section.scrollIntoView({ block: "start" });
    submit.disabled = true;
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) { bar("send", event.loaded, event.total); }
    });
    xhr.addEventListener("load", () => {
      let answer = {};
      try { answer = JSON.parse(xhr.responseText); } catch (ignored) { answer = {}; }
      if (xhr.status === 202) {
        byId("send-bar").value = 100;
        byId("detected").textContent = "Disk format: " + answer.disk_format.toUpperCase() + ".";
        status("queued");
        follow(answer.progress, answer.detail, () => { submit.disabled = false; });
      } else {
        refused.textContent = answer.error || ("The dashboard refused the upload (HTTP " + xhr.status + ").");
        byId("upload-progress").hidden = true;
        submit.disabled = false;
      }
    });
    xhr.addEventListener("error", () => {
      problem("The upload broke off before the dashboard had the whole file.");
      submit.disabled = false;
    });
    xhr.send(new FormData(form));
  }

  document.addEventListener("DOMContentLoaded", () => {
    const form = byId("upload-form");
    if (form && window.FormData && window.EventSource) {
      form.addEventListener("submit", (event) => { event.preventDefault(); send(form); });
      watchFile(form);
    }
    const steps = document.querySelector("[data-progress]");
    if (steps && window.EventSource) { follow(steps.dataset.progress, "", () => {}); }
  });
}());
