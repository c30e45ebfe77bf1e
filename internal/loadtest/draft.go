package loadtest

import "fmt"

// signatureField is one SIGNATURE field on page 1 at height y (percent of the page).
func signatureField(y int) map[string]any {
	return map[string]any{"type": "SIGNATURE", "page": 1, "positionX": 10, "positionY": y, "width": 20, "height": 5}
}

// Draft is the create payload of envelope i of a run: an APPROVER, then two SIGNERs with a
// signature field each, in SEQUENTIAL order, every address under domain and unique to i, so
// that the mails of one envelope can be told from another's.
func Draft(run string, i int, domain string) map[string]any {
	return map[string]any{
		"title": fmt.Sprintf("Contrato %s-%d", run, i),
		"type":  "DOCUMENT",
		"meta":  map[string]any{"signingOrder": "SEQUENTIAL"},
		"recipients": []any{
			map[string]any{"email": fmt.Sprintf("aprobador-%s-%d@%s", run, i, domain), "name": "Aprobador", "role": "APPROVER", "signingOrder": 1},
			map[string]any{"email": fmt.Sprintf("firma1-%s-%d@%s", run, i, domain), "name": "Primera Firma", "role": "SIGNER", "signingOrder": 2,
				"fields": []any{signatureField(10)}},
			map[string]any{"email": fmt.Sprintf("firma2-%s-%d@%s", run, i, domain), "name": "Segunda Firma", "role": "SIGNER", "signingOrder": 3,
				"fields": []any{signatureField(30)}},
		},
	}
}

// Signers is the number of recipients who act on a Draft: the approver and the two signers.
const Signers = 3
