// Signing page: saves field values and the signature through the recipient signing API
// (/api/v2/signing/{token}), proves the signer's account when the recipient's methods ask for
// it, then completes or rejects. The browser sends the ceremony's cookie
// with every call, so verifications done on this page apply to them.
(function () {
  "use strict";
  var meta = JSON.parse(document.getElementById("sign-meta").textContent);
  var api = "/api/v2/signing/" + encodeURIComponent(meta.token);
  var pending = [];
  // embed is the embedded page's messages to the page that frames it (embed.js), or nothing.
  var noop = function () {};
  var embed = window.SobreEmbed || { fieldSigned: noop, fieldUnsigned: noop, completed: noop, rejected: noop, error: noop };

  function $(sel) { return document.querySelector(sel); }
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }

  // call POSTs body as JSON (no body when it is undefined) to the signing API. A refusal is
  // thrown as an Error with the answer's message, and its code, status and Retry-After.
  // On a direct link's page (meta.direct) nothing is saved before the visitor submits: values
  // are kept here, and completing sends them all with the visitor's name and email.
  var values = {};
  function call(path, body) {
    if (!meta.direct) { return post(api + path, body); }
    if (path === "/fields") {
      values[body.fieldId] = body.value;
      return Promise.resolve({ inserted: body.value !== null });
    }
    // The visitor's name and email are checked by the browser first, in its own language.
    var name = $("#visitor-name"), email = $("#visitor-email");
    if (!name.reportValidity() || !email.reportValidity()) {
      var invalid = new Error(""); invalid.issues = [];
      return Promise.reject(invalid);
    }
    var ids = Object.keys(values);
    return post(meta.direct.submit, {
      name: name.value.trim(), email: email.value.trim(),
      templateUpdatedAt: meta.direct.templateUpdatedAt,
      externalId: new URLSearchParams(window.location.search).get("externalId") || undefined,
      fields: ids.map(function (id) { return { fieldId: Number(id), value: values[id] }; })
    }).catch(function (err) {
      // A value refused is told under its field (fields[i] is the i-th sent), the visitor's name
      // or email on its input.
      (err.issues || []).forEach(function (i) {
        var at = /^fields\[(\d+)\]\.value$/.exec(i.path || "");
        if (at && ids[Number(at[1])]) { say("err-" + ids[Number(at[1])], i.message); }
        var input = (i.path === "name" || i.path === "email") && $("#visitor-" + i.path);
        if (input) {
          input.setCustomValidity(i.message);
          input.reportValidity();
          input.addEventListener("input", function () { input.setCustomValidity(""); }, { once: true });
        }
      });
      throw err;
    });
  }

  function post(url, body) {
    var init = { method: "POST", credentials: "same-origin", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) {
          // An INVALID_BODY's message names its one issue already.
          var issues = data.issues || [];
          var msg = data.message || meta.text.errorHeading;
          if (issues.length && !(data.code === "INVALID_BODY" && issues.length === 1)) {
            msg += ": " + issues.map(function (i) { return i.message; }).join("; ");
          }
          var err = new Error(msg);
          err.code = data.code;
          err.status = res.status;
          err.retryAfter = Number(res.headers.get("Retry-After")) || 0;
          err.issues = issues;
          throw err;
        }
        return data;
      });
    });
  }

  // refusal is what to show of err: for a refused value, what is wrong with it, and for
  // required fields left empty, that they are (in the envelope's language); else its message (a
  // failed fetch has no issues).
  function refusal(err) {
    var issues = err.issues || [];
    if (err.code === "RECIPIENT_HAS_UNSIGNED_FIELDS") { return meta.text.fillRequired; }
    if (err.code === "INVALID_BODY" && issues.length) { return issues.map(function (i) { return i.message; }).join("; "); }
    return err.message;
  }

  function say(id, text) { var el = document.getElementById(id); if (el) { el.textContent = text || ""; } }

  // Field boxes over the page images, placed from their percentages.
  all(".field-box").forEach(function (box) {
    box.style.left = box.dataset.x + "%";
    box.style.top = box.dataset.y + "%";
    box.style.width = box.dataset.w + "%";
    box.style.height = box.dataset.h + "%";
    box.addEventListener("click", function () {
      var item = document.getElementById("f-" + box.dataset.field);
      if (!item) { return; }
      item.scrollIntoView({ behavior: "smooth", block: "center" });
      var input = item.querySelector("input, select, textarea");
      if (input) { input.focus(); }
    });
  });

  function markBox(id, text, filled) {
    var box = document.querySelector('.field-box[data-field="' + id + '"] .field-value');
    if (box) {
      box.textContent = text;
      box.parentNode.classList.toggle("filled", filled);
    }
  }

  function saveField(id, value, shown) {
    say("err-" + id, meta.text.saving);
    var p = call("/fields", { fieldId: Number(id), value: value }).then(function (field) {
      say("err-" + id, "");
      var item = document.getElementById("f-" + id);
      if (item) { delete item.dataset.elsewhere; delete item.dataset.unsaved; }
      markBox(id, shown, field.inserted);
      if (value === null) { embed.fieldUnsigned(id); } else { embed.fieldSigned(id, value); }
      refreshDigest();
    }, function (err) {
      // Under the field, what is wrong with its value, in the envelope's language.
      var item = document.getElementById("f-" + id);
      if (item) { item.dataset.unsaved = "1"; }
      say("err-" + id, refusal(err));
      throw err;
    });
    pending.push(p.catch(function () {}));
    return p;
  }

  // shownValue is the value field id's inputs show now (null: none) and its text on the page.
  function shownValue(id) {
    var item = document.getElementById("f-" + id);
    var type = item.dataset.type;
    if (type === "CHECKBOX") {
      var picked = all('input[name="check-' + id + '"]:checked').map(function (c) { return c.value; });
      return { value: picked.length ? picked : null, text: picked.length ? "✓" : "" };
    }
    if (type === "RADIO") {
      var on = $('input[name="radio-' + id + '"]:checked');
      return { value: on ? on.value : null, text: on ? on.value : "" };
    }
    var input = item.querySelector("[data-input]");
    var v = input ? input.value.trim() : "";
    return { value: v === "" ? null : v, text: v };
  }

  // Plain inputs, dropdowns, radios and checkboxes save when they change.
  all("[data-input]").forEach(function (input) {
    input.addEventListener("change", function () {
      var id = input.dataset.input;
      var shown = shownValue(id);
      saveField(id, shown.value, shown.text);
    });
  });

  // The signature: drawn, typed or uploaded, then put in every signature field.
  var signatureValue = null;
  var signatureSaved = false;
  var pad = $("#pad");
  if (pad) {
    var ctx = pad.getContext("2d");
    var drawing = false, drawn = false;
    ctx.lineWidth = 3; ctx.lineCap = "round"; ctx.lineJoin = "round"; ctx.strokeStyle = "#111";
    var at = function (e) {
      var r = pad.getBoundingClientRect();
      return { x: (e.clientX - r.left) * pad.width / r.width, y: (e.clientY - r.top) * pad.height / r.height };
    };
    pad.addEventListener("pointerdown", function (e) {
      drawing = true; pad.setPointerCapture(e.pointerId);
      var p = at(e); ctx.beginPath(); ctx.moveTo(p.x, p.y); ctx.lineTo(p.x + 0.1, p.y + 0.1); ctx.stroke();
      e.preventDefault();
    });
    pad.addEventListener("pointermove", function (e) {
      if (!drawing) { return; }
      var p = at(e); ctx.lineTo(p.x, p.y); ctx.stroke(); drawn = true;
      e.preventDefault();
    });
    var end = function () {
      if (!drawing) { return; }
      drawing = false;
      if (drawn) { useSignature(pad.toDataURL("image/png")); }
    };
    pad.addEventListener("pointerup", end);
    pad.addEventListener("pointercancel", end);
    $("#pad-clear").addEventListener("click", function () {
      ctx.clearRect(0, 0, pad.width, pad.height); drawn = false; signatureValue = null; signatureSaved = false;
    });
  }
  var typed = $("#typed");
  if (typed) {
    typed.addEventListener("change", function () { if (typed.value.trim()) { useSignature(typed.value.trim()); } });
  }
  var upload = $("#upload");
  if (upload) {
    upload.addEventListener("change", function () {
      var file = upload.files && upload.files[0];
      if (!file) { return; }
      var img = new Image();
      img.onload = function () {
        var c = document.createElement("canvas");
        var scale = Math.min(1, 600 / img.width, 200 / img.height);
        c.width = Math.max(1, Math.round(img.width * scale)); c.height = Math.max(1, Math.round(img.height * scale));
        c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
        URL.revokeObjectURL(img.src);
        useSignature(c.toDataURL("image/png"));
      };
      img.onerror = function () { say("sig-error", meta.text.errorHeading); };
      img.src = URL.createObjectURL(file);
    });
  }

  function signatureFields() {
    return all('.field[data-type="SIGNATURE"], .field[data-type="FREE_SIGNATURE"]').map(function (li) { return li.dataset.field; });
  }

  function useSignature(value) {
    signatureValue = value; signatureSaved = false;
    return saveSignature();
  }

  function saveSignature() {
    if (!signatureValue || signatureSaved) { return Promise.resolve(); }
    say("sig-error", meta.text.saving);
    var value = signatureValue;
    return Promise.all(signatureFields().map(function (id) {
      return saveField(id, value, "✓").then(function () {
        var s = document.querySelector('[data-status="' + id + '"]');
        if (s) { s.textContent = "✓ " + meta.text.saved; }
      });
    })).then(function () {
      if (value === signatureValue) { signatureSaved = true; }
      say("sig-error", "");
    }, function (err) { say("sig-error", err.message); throw err; });
  }

  // FAO_HASH: the digest follows the field values; the signer's CMS is sent for verification.
  function refreshDigest() {
    var d = $("#digest");
    if (!d) { return; }
    fetch(api + "/fea", { credentials: "same-origin" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (v) {
      if (v && v.digest) { d.textContent = v.digest; }
    }).catch(function () {});
  }
  var feaButton = $("#fea-verify");
  if (feaButton) {
    feaButton.addEventListener("click", function () {
      var file = $("#fea-file").files[0];
      var read = file ? file.arrayBuffer().then(function (buf) {
        var bytes = new Uint8Array(buf), s = "";
        for (var i = 0; i < bytes.length; i++) { s += String.fromCharCode(bytes[i]); }
        return btoa(s);
      }) : Promise.resolve($("#fea-text").value.trim());
      feaButton.disabled = true; say("fea-error", meta.text.working);
      read.then(function (sig) { return call("/fea", { signature: sig }); }).then(function () {
        window.location.reload();
      }, function (err) { say("fea-error", err.message); feaButton.disabled = false; });
    });
  }

  function settle() { var p = pending; pending = []; return Promise.all(p); }

  // Signer accounts: the password typed again, an authenticator code or a passkey proves the
  // account at the moment of signing; any one of the recipient's methods enables completing.
  var complete = $("#complete");
  function proved(key) {
    var mark = document.getElementById("proved-" + key);
    if (mark) { mark.textContent = "✓ " + meta.text.proved; mark.setAttribute("tabindex", "-1"); }
    var item = document.getElementById("method-" + key);
    if (item) {
      all("#method-" + key + " .inline-row, #method-" + key + " button").forEach(function (el) {
        if (el.parentNode) { el.parentNode.removeChild(el); }
      });
    }
    complete.disabled = false;
    complete.removeAttribute("aria-describedby");
    var hint = $("#complete-hint");
    if (hint) { hint.parentNode.removeChild(hint); }
    say("auth-message", meta.text.proved);
    if (mark) { mark.focus(); }
  }
  function authRefused(err) {
    if (err.code === "AUTHENTICATION_FAILED") { return meta.text.authWrong; }
    if (err.code === "ACCOUNT_LOCKED") {
      return meta.text.accountLocked.replace("%d", String(Math.max(1, Math.ceil((err.retryAfter || 60) / 60))));
    }
    return err.message;
  }
  function prove(key, button, input, send) {
    if (!button) { return; }
    var run = function () {
      if (input && !input.value.trim()) { input.focus(); return; }
      button.disabled = true;
      say("auth-message", meta.text.working);
      send().then(function (res) {
        if (res && res.verified) { proved(key); } else { throw new Error(meta.text.errorHeading); }
      }, function (err) {
        say("auth-message", window.SobrePasskey && window.SobrePasskey.refused(err) ? meta.text.passkeyCancelled : authRefused(err));
        button.disabled = false;
        if (input) { input.value = ""; input.focus(); }
      });
    };
    button.addEventListener("click", run);
    if (input) {
      input.addEventListener("keydown", function (e) {
        if (e.key === "Enter") { e.preventDefault(); run(); }
      });
    }
  }
  var password = $("#auth-password");
  prove("password", $("#auth-password-submit"), password, function () {
    return call("/auth/password", { password: password.value });
  });
  var totp = $("#auth-totp");
  prove("totp", $("#auth-totp-submit"), totp, function () {
    return call("/auth/totp", { code: totp.value.replace(/\s+/g, "") });
  });
  prove("passkey", $("#auth-passkey"), null, function () {
    if (!window.SobrePasskey || !window.SobrePasskey.supported()) {
      return Promise.reject(new Error(meta.text.passkeysUnsupported));
    }
    return call("/auth/passkey/options").then(function (options) {
      return window.SobrePasskey.get(options);
    }).then(function (credential) {
      return call("/auth/passkey", { credential: credential });
    });
  });

  $("#complete").addEventListener("click", function () {
    var button = this;
    button.disabled = true; say("action-error", meta.text.working);
    settle().then(saveSignature).then(saveShown).then(function () { return call("/complete", {}); }).then(function (res) {
      // Framed, the page stays in its frame: the parent hears of it and decides where to go.
      if (window.SobreEmbed) { embed.completed(); window.location.reload(); return; }
      if (res && res.redirectUrl) { window.location.assign(res.redirectUrl); } else { window.location.reload(); }
    }, function (err) {
      // Fields filled in another browser since this page was drawn: drawn again, it shows them
      // empty, to be filled here.
      if (err.status === 401 && (err.issues || []).some(function (i) { return i.path === "fieldId"; })) { window.location.reload(); return; }
      say("action-error", refusal(err));
      button.disabled = false; embed.error();
    });
  });

  // saveShown saves, as this browser's, what the page shows in each field whose stored value
  // may differ from it: one another browser gave (drawn empty, or typed into since), or one whose
  // last save failed. What is sealed is what was shown here; a value refused stops the
  // completion, named under its field.
  function saveShown() {
    return Promise.all(all(".field[data-elsewhere], .field[data-unsaved]").map(saveShownIn));
  }
  function saveShownIn(li) {
    var id = li.dataset.field;
    var shown = signatureFields().indexOf(id) >= 0 ? { value: signatureValue, text: signatureValue ? "✓" : "" } : shownValue(id);
    return saveField(id, shown.value, shown.text);
  }
  // The FAO_HASH digest covers the values as they are: before the signer signs it, the values
  // another browser gave are replaced by what this page shows, and the note stays to say why.
  if ($("#digest")) {
    all(".field[data-elsewhere]").forEach(function (li) {
      var note = document.getElementById("err-" + li.dataset.field).textContent;
      saveShownIn(li).then(function () { say("err-" + li.dataset.field, note); }, function () {});
    });
  }

  var rejectButton = $("#reject");
  if (rejectButton) rejectButton.addEventListener("click", function () {
    var button = this;
    var reason = $("#reason").value.trim();
    button.disabled = true; say("reject-error", meta.text.working);
    call("/reject", { reason: reason }).then(function () { embed.rejected(reason); window.location.reload(); },
      function (err) { say("reject-error", err.message); button.disabled = false; $("#reason").focus(); embed.error(); });
  });
})();
