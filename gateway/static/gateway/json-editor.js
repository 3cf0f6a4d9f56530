// The staff console's JSON editors (gateway/admin_json.py): say at once when the text is not
// JSON, and indent it when staff leave the field. The server checks again on save.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const editor of document.querySelectorAll("textarea.json-editor")) {
    const note = document.createElement("div");
    note.className = "json-editor-note";
    note.setAttribute("role", "status");
    editor.after(note);
    const check = () => {
      const text = editor.value.trim();
      if (!text) {
        note.textContent = "";
        editor.classList.remove("invalid");
        return null;
      }
      try {
        const value = JSON.parse(text);
        note.textContent = "";
        editor.classList.remove("invalid");
        return value;
      } catch (error) {
        note.textContent = "Not valid JSON: " + error.message;
        editor.classList.add("invalid");
        return undefined;
      }
    };
    editor.addEventListener("input", check);
    editor.addEventListener("blur", () => {
      const value = check();
      if (value !== undefined && value !== null) {
        editor.value = JSON.stringify(value, null, 2);
      }
    });
  }
});
