// The Clave Única popup of the embedded signing page, back from Clave Única: tells the frame that
// opened it (a page of this same origin, so the message goes to this origin only), and closes.
(function () {
  "use strict";
  if (window.opener) {
    try { window.opener.postMessage({ action: "sobre-claveunica-done" }, window.location.origin); } catch (e) { /* the frame is gone */ }
  }
  window.close();
})();
