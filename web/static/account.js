// Account page: adds a passkey. Asks Sobre for the options (POST /account/passkeys/options),
// lets the browser make the credential, and sends it with its name (POST /account/passkeys);
// then the page is loaded again to list it.
(function () {
  "use strict";
  var metaEl = document.getElementById("account-meta");
  var button = document.getElementById("passkey-add");
  if (!metaEl || !button) { return; }
  var meta = JSON.parse(metaEl.textContent);
  var nameInput = document.getElementById("passkey-name");
  var message = document.getElementById("passkey-message");

  function say(text, isError) {
    message.textContent = text || "";
    message.classList.toggle("error", !!isError);
  }

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

  button.addEventListener("click", function () {
    if (!window.SobrePasskey || !window.SobrePasskey.supported()) {
      say(meta.unsupported, true);
      return;
    }
    var name = nameInput.value.trim() || nameInput.defaultValue;
    button.disabled = true;
    say(meta.working, false);
    post("/account/passkeys/options").then(function (options) {
      return window.SobrePasskey.create(options);
    }).then(function (credential) {
      return post("/account/passkeys", { name: name, credential: credential });
    }).then(function () {
      window.location.assign(meta.done);
    }, function (err) {
      say(window.SobrePasskey.refused(err) ? meta.cancelled : err.message, true);
      button.disabled = false;
    });
  });
})();
