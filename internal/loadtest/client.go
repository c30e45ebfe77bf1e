package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls Sobre's public API at one base URL (http://host:port) with one API key.
type Client struct {
	Base string
	Key  string
	HTTP *http.Client
}

// APIError is an answer other than 2xx: its status and the body's error code.
type APIError struct {
	Method, Path string
	Status       int
	Code         string
	Body         string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s %s", e.Method, e.Path, e.Status, e.Code, e.Body)
}

// Busy counts the answers 503 SERVICE_UNAVAILABLE (Temporal unavailable or busy) that were
// tried again, over every Client.
var Busy atomic.Int64

// do sends one request with the key when auth, and decodes a 2xx JSON answer into out (when
// not nil); any other status is an *APIError. A 503 is tried again (retryBusy).
func (c *Client) do(ctx context.Context, method, path, contentType string, body []byte, auth bool, out any) error {
	return retryBusy(ctx, func(bool) error { return c.once(ctx, method, path, contentType, body, auth, out) })
}

// retryBusy calls call until its answer is other than 503 SERVICE_UNAVAILABLE, a second apart,
// at most 10 times, as a client told to try again does; retry tells call it is not the first
// attempt. Busy counts the attempts made again.
func retryBusy(ctx context.Context, call func(retry bool) error) error {
	for attempt := 1; ; attempt++ {
		err := call(attempt > 1)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusServiceUnavailable || attempt == 10 {
			return err
		}
		Busy.Add(1)
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
}

func (c *Client) once(ctx context.Context, method, path, contentType string, body []byte, auth bool, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if auth {
		req.Header.Set("Authorization", c.Key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(raw, &e)
		return &APIError{Method: method, Path: path, Status: res.StatusCode, Code: e.Code, Body: strings.TrimSpace(string(raw))}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

// callJSON sends in as JSON (nil: no body) and decodes the answer into out.
func (c *Client) callJSON(ctx context.Context, method, path string, in any, auth bool, out any) error {
	if in == nil {
		return c.do(ctx, method, path, "", nil, auth, out)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s %s: encode: %w", method, path, err)
	}
	return c.do(ctx, method, path, "application/json", raw, auth, out)
}

// Create makes a draft envelope from payload (the JSON of POST /api/v2/envelope/create) over
// one PDF and returns its id.
func (c *Client) Create(ctx context.Context, payload any, pdf []byte) (string, error) {
	body, contentType, err := multipartCreate(payload, pdf)
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := c.do(ctx, "POST", "/api/v2/envelope/create", contentType, body, true, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// multipartCreate is the multipart body of a create: the payload field and one file.
func multipartCreate(payload any, pdf []byte) ([]byte, string, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, "", fmt.Errorf("encode the create payload: %w", err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("payload", string(raw)); err != nil {
		return nil, "", err
	}
	fw, err := w.CreateFormFile("files", "contrato.pdf")
	if err != nil {
		return nil, "", err
	}
	if _, err := fw.Write(pdf); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return body.Bytes(), w.FormDataContentType(), nil
}

// Recipient is a recipient as distribute answers it: its signing token among the rest.
type Recipient struct {
	ID           int64  `json:"id"`
	Email        string `json:"email"`
	Role         string `json:"role"`
	SigningOrder *int   `json:"signingOrder"`
	Token        string `json:"token"`
}

// Distribute sends envelope id and returns its recipients with their tokens.
func (c *Client) Distribute(ctx context.Context, id string) ([]Recipient, error) {
	var out struct {
		Recipients []Recipient `json:"recipients"`
	}
	err := c.callJSON(ctx, "POST", "/api/v2/envelope/distribute", map[string]any{"envelopeId": id}, true, &out)
	return out.Recipients, err
}

// Status is envelope id's status (DRAFT, PENDING, COMPLETED...).
func (c *Client) Status(ctx context.Context, id string) (string, error) {
	var out struct {
		Status string `json:"status"`
	}
	err := c.callJSON(ctx, "GET", "/api/v2/envelope/"+id, nil, true, &out)
	return out.Status, err
}

// AuditTypes counts envelope id's audit entries by type (its first 100 entries).
func (c *Client) AuditTypes(ctx context.Context, id string) (map[string]int, error) {
	var out struct {
		Data []struct {
			Type string `json:"type"`
		} `json:"data"`
	}
	if err := c.callJSON(ctx, "GET", "/api/v2/envelope/"+id+"/audit-log?perPage=100", nil, true, &out); err != nil {
		return nil, err
	}
	n := map[string]int{}
	for _, e := range out.Data {
		n[e.Type]++
	}
	return n, nil
}

// WaitStatus polls envelope id until it has status want, for at most timeout.
func (c *Client) WaitStatus(ctx context.Context, id, want string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		got, err := c.Status(ctx, id)
		if err == nil && got == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("envelope %s: %s after %s, want %s (last error: %v)", id, got, timeout, want, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
