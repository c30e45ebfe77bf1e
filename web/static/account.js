// Account page: adds a passkey, and confirms a second factor with a passkey. Adding asks Sobre
// for the options (POST /account/passkeys/options), lets the browser make the credential, and
// sends it with its name (POST /account/passkeys); confirming asks for assertion options (POST
// /account/factor/passkey/options) and sends the browser's answer (POST /account/factor/passkey).
// Either way the page is then loaded again.
(function () {
  "use strict";
  var metaEl = document.getElementById("account-meta");
  if (!metaEl) { return; }
  var meta = JSON.parse(metaEl.textContent);

  function post(path, body) {
    var init = { method: "POST", credentials: "same-origin", headers: { "Accept": "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) {
          var err = new Error(data.message || meta.error);
          err.code = data.code;
          throw err;
        }
        return data;
      });
    });
  }

  // wire runs ceremony when button is clicked, saying how it goes in message (cancelled when the
  // person or the browser refused), and loads done once it succeeded.
  function wire(button, message, ceremony, done, cancelled) {
    if (!button || !message) { return; }
    function say(text, isError) {
      message.textContent = text || "";
      message.classList.toggle("error", !!isError);
    }
    button.addEventListener("click", function () {
      if (!window.SobrePasskey || !window.SobrePasskey.supported()) {
        say(meta.unsupported, true);
        return;
      }
      button.disabled = true;
      say(meta.working, false);
      ceremony().then(function () {
        window.location.assign(done);
      }, function (err) {
        var text = err.message;
        if (window.SobrePasskey.refused(err)) { text = cancelled; }
        if (err.code === "FACTOR_CONFIRMATION_REQUIRED") { text = meta.factorRequired; }
        say(text, true);
        button.disabled = false;
      });
    });
  }

  var nameInput = document.getElementById("passkey-name");
  wire(document.getElementById("passkey-add"), document.getElementById("passkey-message"), function () {
    var name = nameInput.value.trim() || nameInput.defaultValue;
    return post("/account/passkeys/options").then(function (options) {
      return window.SobrePasskey.create(options);
    }).then(function (credential) {
      return post("/account/passkeys", { name: name, credential: credential });
    });
  }, meta.done, meta.cancelled);

  wire(document.getElementById("factor-passkey"), document.getElementById("factor-message"), function () {
    return post("/account/factor/passkey/options").then(function (options) {
      return window.SobrePasskey.get(options);
    }).then(function (credential) {
      return post("/account/factor/passkey", { credential: credential });
    });
  }, meta.factorDone, meta.factorCancelled);
})();
