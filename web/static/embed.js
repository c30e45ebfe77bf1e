// Embedded signing page (/embed/sign/{token}): tells the page that frames it what happens, with
// Documenso's embed events ({action, data}: document-ready, field-signed, field-unsigned,
// document-completed, document-rejected, document-error). A message goes only to the parent's
// origin, and only when that origin is one the envelope's team allows (the page's
// frame-ancestors); never to "*". Links open in a new window: the frame is never navigated away.
(function () {
  "use strict";
  var meta = JSON.parse(document.getElementById("embed-meta").textContent);
  var allowed = meta.origins || [];

  // parentOrigin is the origin of the page that frames this one, when it is an allowed one.
  function parentOrigin() {
    if (window.parent === window) { return null; }
    var candidates = [];
    if (window.location.ancestorOrigins && window.location.ancestorOrigins.length) {
      candidates.push(window.location.ancestorOrigins[0]);
    }
    if (document.referrer) {
      try { candidates.push(new URL(document.referrer).origin); } catch (e) { /* no referrer origin */ }
    }
    for (var i = 0; i < candidates.length; i++) {
      if (allowed.indexOf(candidates[i]) >= 0) { return candidates[i]; }
    }
    return null;
  }
  var target = parentOrigin();

  function post(action, data) {
    if (!target) { return; }
    window.parent.postMessage({ action: action, data: data === undefined ? null : data }, target);
  }

  window.SobreEmbed = {
    fieldSigned: function (fieldId, value) {
      var isBase64 = typeof value === "string" && value.indexOf("data:image/") === 0;
      post("field-signed", { fieldId: Number(fieldId), value: value, isBase64: isBase64 });
    },
    fieldUnsigned: function (fieldId) { post("field-unsigned", { fieldId: Number(fieldId) }); },
    completed: function () { post("document-completed", meta.event); },
    rejected: function (reason) {
      var data = {};
      for (var k in meta.event) { if (Object.prototype.hasOwnProperty.call(meta.event, k)) { data[k] = meta.event[k]; } }
      data.reason = reason;
      post("document-rejected", data);
    },
    error: function () { post("document-error", null); },
  };

  // Clave Única runs in a popup (it cannot be framed, and the frame stays): the popup is opened
  // at the click (so that it is not blocked), the login is asked for with this frame's session,
  // and its state posted from the popup, in a form's body, to Sobre, which sends the popup on to
  // Clave Única. Back, the popup tells this frame (or closes), and the frame reloads.
  function claveUnica(button) {
    var status = document.getElementById("claveunica-status");
    var popup = window.open("about:blank", "sobre-claveunica", "popup,width=520,height=760");
    if (!popup) { status.textContent = meta.popupBlocked; return; }
    button.disabled = true;
    var done = false;
    var finish = function () { if (!done) { done = true; window.location.reload(); } };
    window.addEventListener("message", function (e) {
      if (e.origin === window.location.origin && e.source === popup && e.data && e.data.action === "sobre-claveunica-done") { finish(); }
    });
    fetch(window.location.pathname.replace(/\/$/, "") + "/claveunica", { method: "POST", credentials: "same-origin" }).then(function (res) {
      return res.json().then(function (data) { if (!res.ok) { throw new Error(data.message || ""); } return data; });
    }).then(function (data) {
      var d = popup.document;
      var form = d.createElement("form");
      form.method = "post";
      form.action = window.location.origin + "/auth/claveunica/popup";
      var input = d.createElement("input");
      input.type = "hidden"; input.name = "state"; input.value = data.state;
      form.appendChild(input);
      d.body.appendChild(form);
      form.submit();
      var watch = window.setInterval(function () { if (popup.closed) { window.clearInterval(watch); finish(); } }, 500);
    }, function (err) {
      popup.close();
      status.textContent = err.message;
      button.disabled = false;
      window.SobreEmbed.error();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var cu = document.getElementById("claveunica-popup");
    if (cu) { cu.addEventListener("click", function () { claveUnica(cu); }); }
    Array.prototype.forEach.call(document.querySelectorAll("a[href]"), function (a) {
      if (a.getAttribute("href").indexOf("/embed/sign/") === 0) { return; }
      a.setAttribute("target", "_blank");
      a.setAttribute("rel", "noopener noreferrer");
    });
    if (meta.state === "document") { post("document-ready", null); }
    if (meta.state === "error") { window.SobreEmbed.error(); }
  });
})();
