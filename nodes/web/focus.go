package web

// focusJS finds the element that has the focus, down through open shadow roots and frames of
// the page's origin, and says whether typed text would land in it: {editable, what}. Inside a
// frame of another origin it cannot look, and lets the text through.
const focusJS = `(() => {
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
    if (el && (el.tagName === "IFRAME" || el.tagName === "FRAME")) {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (!doc) return {editable: true, what: "a frame of another origin"};
      el = doc.activeElement;
      continue;
    }
    break;
  }
  const what = !el ? "nothing" : el.tagName.toLowerCase() + (el.id ? "#" + el.id : "");
  if (!el || el === el.ownerDocument.body && el.ownerDocument.designMode !== "on" && !el.isContentEditable)
    return {editable: false, what: "nothing (the page itself)"};
  if (el.isContentEditable || el.ownerDocument.designMode === "on") return {editable: true, what};
  const usable = !el.disabled && !el.readOnly;
  if (el.tagName === "TEXTAREA") return {editable: usable, what};
  if (el.tagName === "INPUT") {
    const typed = !/^(button|checkbox|color|file|hidden|image|radio|range|reset|submit)$/.test(el.type);
    return {editable: usable && typed, what: what + (typed ? "" : " (type " + el.type + ")")};
  }
  return {editable: false, what};
})()`

type focus struct {
	Editable bool
	What     string
}
