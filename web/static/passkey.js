// Passkeys (WebAuthn) for Sobre's pages: turns the options Sobre sends (JSON, whose binary
// members are base64url strings, as go-webauthn writes them) into what navigator.credentials
// takes, and the credential the browser gives back into JSON again (binary members in
// base64url), the shape Sobre's server reads.
(function () {
  "use strict";

  function fromB64url(s) {
    s = String(s).replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var bin = atob(s), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    return bytes.buffer;
  }

  function toB64url(buf) {
    if (!buf) { return undefined; }
    var bytes = new Uint8Array(buf), s = "";
    for (var i = 0; i < bytes.length; i++) { s += String.fromCharCode(bytes[i]); }
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function withIDs(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: fromB64url(c.id) }); });
  }

  function creationOptions(json) {
    var pk = Object.assign({}, json.publicKey || json);
    pk.challenge = fromB64url(pk.challenge);
    pk.user = Object.assign({}, pk.user, { id: fromB64url(pk.user.id) });
    if (pk.excludeCredentials) { pk.excludeCredentials = withIDs(pk.excludeCredentials); }
    return { publicKey: pk };
  }

  function requestOptions(json) {
    var pk = Object.assign({}, json.publicKey || json);
    pk.challenge = fromB64url(pk.challenge);
    if (pk.allowCredentials) { pk.allowCredentials = withIDs(pk.allowCredentials); }
    return { publicKey: pk };
  }

  function extensions(cred) {
    try { return cred.getClientExtensionResults ? cred.getClientExtensionResults() : {}; } catch (e) { return {}; }
  }

  function creationJSON(cred) {
    var r = cred.response;
    return {
      id: cred.id, rawId: toB64url(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: extensions(cred),
      response: {
        clientDataJSON: toB64url(r.clientDataJSON),
        attestationObject: toB64url(r.attestationObject),
        transports: typeof r.getTransports === "function" ? r.getTransports() : []
      }
    };
  }

  function assertionJSON(cred) {
    var r = cred.response;
    return {
      id: cred.id, rawId: toB64url(cred.rawId), type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: extensions(cred),
      response: {
        clientDataJSON: toB64url(r.clientDataJSON),
        authenticatorData: toB64url(r.authenticatorData),
        signature: toB64url(r.signature),
        userHandle: toB64url(r.userHandle)
      }
    };
  }

  window.SobrePasskey = {
    // supported reports whether this browser can make and use passkeys.
    supported: function () { return !!(window.PublicKeyCredential && navigator.credentials && navigator.credentials.create); },
    // create makes a passkey with the options of navigator.credentials.create (Sobre's JSON).
    create: function (options) { return navigator.credentials.create(creationOptions(options)).then(creationJSON); },
    // get answers with a passkey, given the options of navigator.credentials.get (Sobre's JSON).
    get: function (options) { return navigator.credentials.get(requestOptions(options)).then(assertionJSON); },
    // refused reports whether err means the person cancelled or the browser did not allow it.
    refused: function (err) { return !!err && (err.name === "NotAllowedError" || err.name === "AbortError"); }
  };
})();
