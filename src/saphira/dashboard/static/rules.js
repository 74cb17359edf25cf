// Saphira dashboard, the Add Rule form: shows only the fields the chosen rule uses,
// and says before the form is sent when the rule would be open to every address.
// Plain JavaScript, no build step, no other origin. (The server says it again and
// asks to confirm: this only says it sooner.)
"use strict";

function ruleForm(form) {
  const note = document.getElementById("open-note");
  const preset = form.elements.preset;

  function update() {
    const chosen = preset.selectedOptions[0];
    for (const part of form.querySelectorAll("div[data-fields]")) {
      part.hidden = part.dataset.fields !== chosen.dataset.fields;
    }
    const remote = form.querySelector("input[name=remote]:checked");
    const cidr = form.elements.cidr.value.trim();
    const open = form.elements.direction.value === "ingress" && remote && remote.value === "cidr"
      && /^[0-9a-fA-F.:]+\/0$/.test(cidr);
    if (!note) { return; }  // the server's own warning is on the page already
    note.hidden = !open;
    note.textContent = open
      ? "Open to the whole internet (" + cidr + "): " + chosen.dataset.reach
        + " of every instance in this group can be reached from any address."
      : "";
  }
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("rule-form");
  if (form) { ruleForm(form); }
});
