package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/pdf"
)

func TestPageImagesKeepWithinTheirBudget(t *testing.T) {
	c := newPageImages(250)
	draws := 0
	draw := func(size int) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { draws++; return make([]byte, size), nil }
	}
	ctx := context.Background()
	for page := 1; page <= 3; page++ {
		if _, err := c.get(ctx, pageKey{"d", page, 1000}, draw(100)); err != nil {
			t.Fatal(err)
		}
	}
	if draws != 3 || c.bytes != 200 || c.lru.Len() != 2 {
		t.Fatalf("after three 100-byte images in 250 bytes: %d draws, %d bytes, %d kept", draws, c.bytes, c.lru.Len())
	}
	// Page 1 left first; pages 2 and 3 are served without drawing.
	for _, page := range []int{2, 3} {
		if _, err := c.get(ctx, pageKey{"d", page, 1000}, draw(100)); err != nil {
			t.Fatal(err)
		}
	}
	if draws != 3 {
		t.Fatalf("kept images drawn again: %d draws", draws)
	}
	if _, err := c.get(ctx, pageKey{"d", 1, 1000}, draw(100)); err != nil || draws != 4 {
		t.Fatalf("evicted image: err %v, %d draws", err, draws)
	}
	// Another width or other data is another image.
	if _, err := c.get(ctx, pageKey{"d", 1, 1100}, draw(10)); err != nil || draws != 5 {
		t.Fatalf("other width: err %v, %d draws", err, draws)
	}
	if _, err := c.get(ctx, pageKey{"e", 1, 1000}, draw(10)); err != nil || draws != 6 {
		t.Fatalf("other data: err %v, %d draws", err, draws)
	}
	// An image larger than the budget is served, not kept, and evicts nothing.
	before := c.lru.Len()
	if img, err := c.get(ctx, pageKey{"big", 1, 1000}, draw(300)); err != nil || len(img) != 300 {
		t.Fatalf("oversized image: %v, %d bytes", err, len(img))
	}
	if c.lru.Len() != before || c.bytes > 250 {
		t.Fatalf("oversized image changed the cache: %d kept (was %d), %d bytes", c.lru.Len(), before, c.bytes)
	}
}

func TestPageImagesDrawOncePerConcurrentRequests(t *testing.T) {
	c := newPageImages(1 << 20)
	var draws atomic.Int32
	release := make(chan struct{})
	draw := func(context.Context) ([]byte, error) {
		draws.Add(1)
		<-release
		return []byte("png"), nil
	}
	var wg sync.WaitGroup
	started := make(chan struct{}, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			if img, err := c.get(context.Background(), pageKey{"d", 1, 1000}, draw); err != nil || string(img) != "png" {
				t.Errorf("get: %q, %v", img, err)
			}
		}()
	}
	for range 20 {
		<-started
	}
	close(release)
	wg.Wait()
	// Goroutines that arrived after the drawing finished read the kept image; none drew again.
	if n := draws.Load(); n != 1 {
		t.Fatalf("%d draws for one image", n)
	}
}

func TestPageImagesKeepTheDocumentsFailuresOnly(t *testing.T) {
	c := newPageImages(1 << 20)
	ctx := context.Background()
	ok := func(context.Context) ([]byte, error) { return []byte("ok"), nil }

	// A failure that is not the document's (no PDFium instance free, say) is not kept.
	busy := errors.New("no instance free")
	if _, err := c.get(ctx, pageKey{"d", 1, 1000}, func(context.Context) ([]byte, error) { return nil, busy }); !errors.Is(err, busy) {
		t.Fatalf("err %v", err)
	}
	if img, err := c.get(ctx, pageKey{"d", 1, 1000}, ok); err != nil || string(img) != "ok" {
		t.Fatalf("after a passing failure: %q, %v", img, err)
	}

	// The document's own failure (past the deadline) is kept: asked again, it is not drawn again.
	slow := fmt.Errorf("%w: PDFium took longer than 15s", pdf.ErrLimit)
	draws := 0
	for range 3 {
		_, err := c.get(ctx, pageKey{"d", 2, 1000}, func(context.Context) ([]byte, error) { draws++; return nil, slow })
		if !errors.Is(err, pdf.ErrLimit) {
			t.Fatalf("err %v, want the kept ErrLimit", err)
		}
	}
	if draws != 1 {
		t.Fatalf("a page that failed for the document's sake was drawn %d times", draws)
	}
}

func TestPageImagesWaiterLeavesWhenItsRequestEnds(t *testing.T) {
	c := newPageImages(1 << 20)
	release, drawing := make(chan struct{}), make(chan struct{})
	defer close(release)
	go func() {
		_, _ = c.get(context.Background(), pageKey{"d", 1, 1000}, func(context.Context) ([]byte, error) {
			close(drawing)
			<-release
			return []byte("png"), nil
		})
	}()
	<-drawing
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.get(ctx, pageKey{"d", 1, 1000}, func(context.Context) ([]byte, error) { return nil, errors.New("not the one drawing") })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiter whose request ended: %v, want its context's error", err)
	}
}

func TestRoundWidth(t *testing.T) {
	for _, c := range []struct{ in, want int }{{200, 200}, {201, 300}, {999, 1000}, {1000, 1000}, {1950, 2000}, {2000, 2000}} {
		if got := roundWidth(c.in, 2000); got != c.want {
			t.Errorf("roundWidth(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
