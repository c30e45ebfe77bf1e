// Package webhook is the outbound HTTP side of Sobre's webhooks (docs/webhooks.md): the secrets
// (NewSecret, CheckSecret, SigningKey), the Standard Webhooks 1.0 signature (Sign, Verify), which
// destinations a webhook may reach (Policy: CheckURL when a URL is given, and again for every
// connection a Sender dials), and one attempt of a delivery (Sender.Send and its Result). The
// worker's delivery activity and the API's test endpoint both send through it; `sobre
// webhook-listen` verifies with it.
//
// It decides how a webhook request is signed, where it may go and what an answer means, never
// which events are sent or when. It imports nothing of Sobre.
package webhook
