package claveunicadev

import (
	"html/template"
	"net/http"
	"net/url"
)

// authRequest is a validated authorization request.
type authRequest struct {
	ClientID, RedirectURI, State, Nonce string
}

// readAuthRequest checks an authorization request, from the query (GET) or the login form
// (POST). The problem, if any, is in Spanish, for the page.
func (p *Provider) readAuthRequest(v url.Values) (authRequest, string) {
	a := authRequest{ClientID: v.Get("client_id"), RedirectURI: v.Get("redirect_uri"), State: v.Get("state"), Nonce: v.Get("nonce")}
	c, ok := p.clients[a.ClientID]
	switch {
	case !ok:
		return a, "client_id desconocido"
	case v.Get("response_type") != "code":
		return a, "response_type debe ser code"
	case v.Get("scope") != "openid run name":
		return a, `scope debe ser exactamente "openid run name"`
	case a.State == "":
		return a, "falta state"
	case !c.allows(a.RedirectURI):
		return a, "redirect_uri no está registrada para este cliente"
	}
	return a, ""
}

// loginTemplate is the login page: one form, the authorization request in hidden fields, one
// submit button per test person whose text (its accessible name) is the RUN and the name.
var loginTemplate = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ingrese con ClaveÚnica (local)</title>
<style>
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1a1a1a}
header{background:#0f69c4;color:#fff;padding:.75rem 1rem;font-weight:700}
main{max-width:28rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0}
fieldset{border:0;margin:0;padding:0}
legend{font-weight:600;margin-bottom:.25rem}
button{display:block;box-sizing:border-box;width:100%;margin:.5rem 0;padding:.75rem;font:inherit;text-align:left;border:2px solid #0f69c4;border-radius:6px;background:#fff;color:#0b4f93;min-height:44px;cursor:pointer}
button:hover{background:#e8f1fb}
button:focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}
.run{display:block;font-weight:700;font-variant-numeric:tabular-nums}
p.note{color:#3d4451;font-size:.9rem}
</style></head>
<body><header>ClaveÚnica · entorno local de desarrollo</header>
<main>
<h1>Ingrese con ClaveÚnica</h1>
<p>Este proveedor local reemplaza a ClaveÚnica en desarrollo y pruebas. No pide contraseña.</p>
<form method="post">
<input type="hidden" name="client_id" value="{{.Req.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.Req.RedirectURI}}">
<input type="hidden" name="state" value="{{.Req.State}}">
<input type="hidden" name="nonce" value="{{.Req.Nonce}}">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="scope" value="openid run name">
<fieldset><legend>Elija una persona de prueba</legend>
{{range .People}}<button type="submit" name="run" value="{{.RUN}}"><span class="run">RUN {{.Label}}</span> {{.FullName}}</button>
{{end}}</fieldset>
</form>
<p class="note">RUN del entorno de pruebas de ClaveÚnica. Nada sale de este equipo.</p>
</main></body></html>`))

func (p *Provider) loginPage(w http.ResponseWriter, r *http.Request) {
	a, problem := p.readAuthRequest(r.URL.Query())
	if problem != "" {
		http.Error(w, "Solicitud de autorización inválida: "+problem, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	// The form posts here, and the answer redirects to the relying party: browsers apply
	// form-action to that redirect too, so the redirect URI's origin (validated above) is allowed.
	formAction := "'self'"
	if u, err := url.Parse(a.RedirectURI); err == nil && u.Scheme != "" && u.Host != "" {
		formAction += " " + u.Scheme + "://" + u.Host
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+formAction+"; frame-ancestors 'none'")
	if err := loginTemplate.Execute(w, map[string]any{"Req": a, "People": SandboxPeople}); err != nil {
		p.log.Warn("local Clave Única: write the login page", "err", err)
	}
}

// login is the login form posted: a code for the chosen test person, and the browser sent back
// to the redirect URI with code and state.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "Formulario ilegible", http.StatusBadRequest)
		return
	}
	a, problem := p.readAuthRequest(r.PostForm)
	if problem != "" {
		http.Error(w, "Solicitud de autorización inválida: "+problem, http.StatusBadRequest)
		return
	}
	var person *Person
	for i := range SandboxPeople {
		if SandboxPeople[i].RUN() == r.PostForm.Get("run") {
			person = &SandboxPeople[i]
		}
	}
	if person == nil {
		http.Error(w, "RUN de prueba desconocido", http.StatusBadRequest)
		return
	}
	code := p.remember(p.codes, grant{clientID: a.ClientID, redirectURI: a.RedirectURI, nonce: a.Nonce, state: a.State,
		person: *person, expires: p.opts.Now().Add(CodeLifetime)})
	p.log.Info("local Clave Única login", "run", person.Label(), "client", a.ClientID)
	to, err := url.Parse(a.RedirectURI)
	if err != nil {
		http.Error(w, "redirect_uri ilegible", http.StatusBadRequest)
		return
	}
	q := to.Query()
	q.Set("code", code)
	q.Set("state", a.State)
	to.RawQuery = q.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}
