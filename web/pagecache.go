package web

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/singleflight"

	"github.com/sobre-sign/sobre/pdf"
)

// DefaultPageCacheBytes is how many bytes of page images a Handler keeps when PageCacheBytes is
// not set.
const DefaultPageCacheBytes = 64 << 20

// pageWidthStep rounds the widths a page image is drawn at, so one page has at most
// MaxRenderWidth/pageWidthStep images in the cache however the callers choose their widths.
const pageWidthStep = 100

// pageKey names one page image: the stored document data it was drawn from, the page (from 1)
// and the width in pixels. Stored document data never changes (a white-out stores new data under
// a new id), so an image never goes stale and needs no invalidation.
type pageKey struct {
	dataID      string
	page, width int
}

// pageImages keeps the page images drawn for signing pages, least recently used first out, within
// a budget of bytes. Requests for one image that arrive while it is being drawn wait for that
// drawing instead of starting their own, so a loop on one page URL costs one render.
type pageImages struct {
	budget int64

	mu     sync.Mutex
	lru    *simplelru.LRU[pageKey, []byte]
	bytes  int64
	failed *simplelru.LRU[pageKey, error] // drawings that failed for the document's sake

	drawing singleflight.Group
}

func newPageImages(budget int64) *pageImages {
	if budget <= 0 {
		budget = DefaultPageCacheBytes
	}
	c := &pageImages{budget: budget}
	// The count bound is only a backstop; the byte budget is what evicts.
	c.lru, _ = simplelru.NewLRU(1<<16, func(_ pageKey, img []byte) { c.bytes -= int64(len(img)) })
	c.failed, _ = simplelru.NewLRU[pageKey, error](maxFailedPages, nil)
	return c
}

// maxFailedPages is how many failed drawings a cache remembers.
const maxFailedPages = 1024

// get returns the image for key, drawing it with draw when it is not kept. An image larger than
// the whole budget is returned and not kept. A drawing that failed because of the document (over
// a limit, past the deadline, unreadable: pdf.IsDocumentError) fails the same way whenever it is
// asked again, since the stored data never changes: the error is kept too, so a page that takes
// PDFium its whole deadline costs that once, not once per request. A caller whose context ends
// stops waiting; the drawing goes on for the others.
func (c *pageImages) get(ctx context.Context, key pageKey, draw func(context.Context) ([]byte, error)) ([]byte, error) {
	if img, err, ok := c.kept(key); ok {
		return img, err
	}
	flight := fmt.Sprintf("%s/%d/%d", key.dataID, key.page, key.width)
	done := c.drawing.DoChan(flight, func() (any, error) {
		// A drawing that finished between the look-up above and this flight has kept its result.
		if img, err, ok := c.kept(key); ok {
			return img, err
		}
		// The drawing outlives a caller that goes away: others may be waiting for it.
		img, err := draw(context.WithoutCancel(ctx))
		if err != nil {
			if pdf.IsDocumentError(err) {
				c.mu.Lock()
				c.failed.Add(key, err)
				c.mu.Unlock()
			}
			return nil, err
		}
		c.put(key, img)
		return img, nil
	})
	select {
	case r := <-done:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]byte), nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// kept returns what is kept for key: its image, or the error its drawing failed with.
func (c *pageImages) kept(key pageKey) ([]byte, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if img, ok := c.lru.Get(key); ok {
		return img, nil, true
	}
	if err, ok := c.failed.Get(key); ok {
		return nil, err, true
	}
	return nil, nil, false
}

func (c *pageImages) put(key pageKey, img []byte) {
	size := int64(len(img))
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(key) {
		return
	}
	c.lru.Add(key, img)
	c.bytes += size
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

// roundWidth rounds a requested width up to the next step (and down to max).
func roundWidth(width, max int) int {
	w := (width + pageWidthStep - 1) / pageWidthStep * pageWidthStep
	if w > max {
		w = max
	}
	return w
}
