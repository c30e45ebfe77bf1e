package loadtest

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// signingView is what a signer's browser reads when it opens its link.
type signingView struct {
	MayActNow bool   `json:"mayActNow"`
	Waiting   string `json:"waiting"`
	Fields    []struct {
		ID       int64  `json:"id"`
		Type     string `json:"type"`
		Inserted bool   `json:"inserted"`
	} `json:"fields"`
}

// Open opens token's signing link (GET /api/v2/signing/{token}), as its page does.
func (c *Client) Open(ctx context.Context, token string) (signingView, error) {
	var v signingView
	err := c.callJSON(ctx, "GET", "/api/v2/signing/"+token, nil, false, &v)
	return v, err
}

// Fill puts value in field id as token's recipient.
func (c *Client) Fill(ctx context.Context, token string, field int64, value string) error {
	return c.callJSON(ctx, "POST", "/api/v2/signing/"+token+"/fields", map[string]any{"fieldId": field, "value": value}, false, nil)
}

// Complete signs or approves as token's recipient. An attempt answered 503 may have been
// recorded all the same (the answer, not the action, was lost): when the attempt made again
// finds the recipient signed or the envelope completed, the action is done.
func (c *Client) Complete(ctx context.Context, token string) error {
	path := "/api/v2/signing/" + token + "/complete"
	return retryBusy(ctx, func(retry bool) error {
		err := c.once(ctx, "POST", path, "application/json", []byte("{}"), false, nil)
		var apiErr *APIError
		if retry && errors.As(err, &apiErr) && (apiErr.Code == "RECIPIENT_ALREADY_SIGNED" || apiErr.Code == "ENVELOPE_COMPLETED") {
			return nil
		}
		return err
	})
}

// Act opens token's link, fills each field left empty with a typed signature and completes, as
// a signer's browser does. A recipient whose turn has not come yet (the one before is still
// being recorded) is tried again for up to 30 s.
func (c *Client) Act(ctx context.Context, token string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := c.Open(ctx, token)
		if err != nil {
			return err
		}
		if !v.MayActNow && time.Now().Before(deadline) {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		for _, f := range v.Fields {
			if !f.Inserted && f.Type == "SIGNATURE" {
				if err := c.Fill(ctx, token, f.ID, "Firma de carga"); err != nil {
					return err
				}
			}
		}
		err = c.Complete(ctx, token)
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.Code == "RECIPIENT_OUT_OF_TURN" && time.Now().Before(deadline) {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("act as %s…: %w", token[:min(6, len(token))], err)
		}
		return nil
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
