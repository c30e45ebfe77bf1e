package pdf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// parserBomb is a small-looking document whose parsing costs far more memory than its size: one
// array of n numbers (a font's widths, which normalising keeps), which pdfcpu holds as n boxed
// values.
func parserBomb(n int) []byte {
	numbers := strings.Repeat("0 ", n)
	return testpdf.File([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> >>",
		"[" + numbers + "]",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 0 /LastChar 0 /Widths 4 0 R >>",
	}, 1)
}

func TestReadingProcessIsCapped(t *testing.T) {
	c := ReaderConfig{MemoryMiB: 256, Timeout: time.Minute, Processes: 1}

	// Reading an ordinary document in the child gives what reading it here gives.
	plain := testpdf.Pages(3, "hello")
	want, err := normalize(plain, Limits{}.orDefault(), false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readInChild(t.Context(), plain, Limits{}.orDefault(), c)
	if err != nil {
		t.Fatalf("read a plain document in a child: %v", err)
	}
	if len(got.Pages) != 3 || fmt.Sprint(got.Pages) != fmt.Sprint(want.Pages) || len(got.Data) == 0 {
		t.Errorf("child read %v (%d bytes), want %v", got.Pages, len(got.Data), want.Pages)
	}

	// The package's errors come back as themselves, with their messages.
	_, err = readInChild(t.Context(), []byte("%PDF-1.7\nnot really"), Limits{}.orDefault(), c)
	if !errors.Is(err, ErrNotPDF) {
		t.Errorf("a broken file: %v, want ErrNotPDF", err)
	}

	// Eight million numbers in 16 MB: no stream, nothing to inflate, yet gigabytes to parse.
	start := time.Now()
	_, err = readInChild(t.Context(), parserBomb(8_000_000), Limits{}.orDefault(), c)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "256 MiB of memory") {
		t.Fatalf("a parser bomb: %v, want ErrLimit naming the memory cap", err)
	}
	t.Logf("parser bomb refused in %v: %v", time.Since(start).Round(time.Millisecond), err)

	// Fewer numbers, which a capped reading can hold, still over the entries limit: what the
	// seal's readings of the document would cost later is refused now, with its reason.
	few := Limits{Entries: 100_000}.orDefault()
	_, err = readInChild(t.Context(), parserBomb(few.Entries+10), few, c)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "100000 array and dictionary entries") {
		t.Errorf("an array of %d numbers: %v, want ErrLimit naming the entries", few.Entries+10, err)
	}

	// A reading that passes its deadline is stopped.
	c.Timeout = time.Millisecond
	_, err = readInChild(t.Context(), plain, Limits{}.orDefault(), c)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "longer than 1ms") {
		t.Errorf("past the deadline: %v, want ErrLimit naming the deadline", err)
	}

	// A request that ends stops its reading, and says so: it is not the document's fault.
	ctx, cancel := contextCanceled(t)
	cancel()
	_, err = readInChild(ctx, plain, Limits{}.orDefault(), ReaderConfig{MemoryMiB: 256, Timeout: time.Minute, Processes: 1})
	if err == nil || IsDocumentError(err) {
		t.Errorf("a cancelled request: %v, want an error that is not about the document", err)
	}
}

func contextCanceled(t *testing.T) (context.Context, context.CancelFunc) {
	return context.WithCancel(t.Context())
}

// BenchmarkReadingProcess is what reading an upload in a process of its own costs over reading
// it in this one, for a one-page document (where the start of the process weighs most).
func BenchmarkReadingProcess(b *testing.B) {
	doc := testpdf.Pages(1, "hello")
	l := Limits{}.orDefault()
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if _, err := normalize(doc, l, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("child", func(b *testing.B) {
		c := ReaderConfig{MemoryMiB: 512, Timeout: time.Minute, Processes: 1}
		for b.Loop() {
			if _, err := readInChild(b.Context(), doc, l, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestWhyStopped(t *testing.T) {
	c := ReaderConfig{MemoryMiB: 512, Timeout: time.Minute}
	exited := func(code int) *syscall.WaitStatus { ws := syscall.WaitStatus(code << 8); return &ws }
	killed := func(sig syscall.Signal) *syscall.WaitStatus { ws := syscall.WaitStatus(sig); return &ws }
	runErr := errors.New("exit status")
	tests := []struct {
		name   string
		status *syscall.WaitStatus
		stderr string
		want   error // nil: not the document's doing
		words  string
	}{
		{"the heap is refused memory", exited(2), "fatal error: runtime: cannot allocate memory\n\nruntime stack:", ErrLimit, "512 MiB of memory"},
		{"an arena is refused", exited(2), "fatal error: runtime: out of memory", ErrLimit, "512 MiB of memory"},
		{"a thread cannot start (cgo)", exited(2), "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort", ErrLimit, "512 MiB of memory"},
		{"a thread cannot start", exited(2), "runtime: failed to create new OS thread (have 5 already; errno=11)\nfatal error: newosproc", ErrLimit, "512 MiB of memory"},
		{"a data race", exited(66), "WARNING: DATA RACE", nil, "DATA RACE"},
		{"ThreadSanitizer is refused memory", exited(66), "==7936==ERROR: ThreadSanitizer failed to allocate 0x8000000 (134217728) bytes at address 218018000000 (errno: 12)", ErrLimit, "512 MiB of memory"},
		{"aborted for want of memory", killed(syscall.SIGABRT), "runtime/cgo: pthread_create failed: Resource temporarily unavailable", ErrLimit, "512 MiB of memory"},
		{"the out-of-memory killer", killed(syscall.SIGKILL), "", ErrLimit, "512 MiB of memory"},
		{"a stack overflow", exited(2), "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow", ErrUnsupported, "goroutine stack exceeds"},
		{"another signal", killed(syscall.SIGSEGV), "", ErrUnsupported, "segmentation fault"},
		{"a bad job", exited(3), `pdf reader: bad job "x"`, nil, "bad job"},
		{"never started", nil, "", nil, "exit status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := whyStopped(tt.status, runErr, tt.stderr, c)
			if tt.want == nil {
				if IsDocumentError(err) || !errors.Is(err, runErr) {
					t.Errorf("got %v, want an error wrapping the run's, not about the document", err)
				}
			} else if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.words) {
				t.Errorf("got %q, want it to say %q", err, tt.words)
			}
		})
	}
}
