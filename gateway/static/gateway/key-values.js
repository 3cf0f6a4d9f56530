// The staff console's name/value rows (kernel/admin_objects.py): a button under each table adds
// a blank row, numbered after the last one. Without this script the form's blank rows serve.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll("table.key-values")) {
    const name = table.dataset.name;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button key-values-add";
    button.textContent = "Add a row";
    // The table and its button in a box of their own: the form row lays its parts side by side.
    const box = document.createElement("div");
    table.before(box);
    box.append(table, button);
    button.addEventListener("click", () => {
      const body = table.tBodies[0];
      const number = body.rows.length;
      const row = body.insertRow();
      for (const [part, label] of [["key", "name"], ["value", "value"]]) {
        const input = document.createElement("input");
        input.type = "text";
        input.name = `${name}-${part}-${number}`;
        input.setAttribute("aria-label", label);
        row.insertCell().append(input);
      }
      row.querySelector("input").focus();
    });
  }
});
