package pdf

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"

	"github.com/sobre-sign/sobre/internal/testpdf"
)

// TestInstanceReuse: an instance whose call ended well serves the next call; one whose call
// failed, ran past its deadline or panicked is thrown away, and the panic reaches the caller.
func TestInstanceReuse(t *testing.T) {
	doc := testpdf.Minimal("reuse")
	call := func(during func(pdfium.Pdfium)) api.Module {
		t.Helper()
		inst, _, _, done, err := openDocuments(doc)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		during(inst)
		return moduleOf(inst)
	}
	well := func(pdfium.Pdfium) {}
	first := call(well)
	if first == nil {
		t.Fatal("no WebAssembly module behind the instance")
	}
	if again := call(well); again != first {
		t.Error("an instance whose call ended well was not reused")
	}

	failed := call(func(inst pdfium.Pdfium) {
		_ = withDeadline(inst, time.Minute, func() error { return errors.New("a failure") })
	})
	if call(well) == failed {
		t.Error("an instance whose call failed was reused")
	}

	stopped := call(func(inst pdfium.Pdfium) {
		_ = withDeadline(inst, time.Millisecond, func() error { time.Sleep(50 * time.Millisecond); return nil })
	})
	if call(well) == stopped {
		t.Error("an instance stopped at its deadline was reused")
	}

	var panicked api.Module
	func() {
		defer func() {
			if v := recover(); v != "a panic" {
				t.Errorf("recovered %v, want the call's own panic", v)
			}
		}()
		call(func(inst pdfium.Pdfium) {
			panicked = moduleOf(inst)
			panic("a panic")
		})
	}()
	if call(well) == panicked {
		t.Error("an instance whose call panicked was reused")
	}
}

// TestInstanceHoldsNoCopy: PDFium reads an open document from the caller's bytes, so an
// instance does not grow by the document's size, and stays fit to serve the next call.
func TestInstanceHoldsNoCopy(t *testing.T) {
	// One page whose content stream is 40 MiB of blanks: more than an instance's first memory.
	doc := onePage("/MediaBox [0 0 595 842]", strings.Repeat(" ", 40<<20))
	inst, _, pages, done, err := openDocuments(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if pages[0] != 1 {
		t.Fatalf("%d pages, want 1", pages[0])
	}
	if size := moduleOf(inst).Memory().Size(); size >= instanceMemory || int(size) > len(doc) {
		t.Errorf("an instance with a %d MiB document open holds %d MiB", len(doc)>>20, size>>20)
	}
}

// TestWaitingInstancesAreClosedAtRest: once the engine is quiet, the instances waiting for a call
// are closed; the next call gets a new one.
func TestWaitingInstancesAreClosedAtRest(t *testing.T) {
	doc := testpdf.Minimal("rest")
	call := func() api.Module {
		t.Helper()
		inst, _, _, done, err := openDocuments(doc)
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		return moduleOf(inst)
	}
	retireTimer.Lock()
	if retireTimer.Timer != nil {
		retireTimer.Stop()
		retireTimer.Timer = nil
	}
	retireTimer.Unlock()
	first := call()
	retireTimer.Lock()
	armed := retireTimer.Timer != nil
	retireTimer.Unlock()
	if !armed {
		t.Fatal("giving an instance back to wait did not start the timer that closes it")
	}
	retireIdle()
	if !first.IsClosed() {
		t.Error("a waiting instance was not closed")
	}
	if len(idle()) != 0 {
		t.Errorf("%d instances still wait", len(idle()))
	}
	if second := call(); second == first || second.IsClosed() {
		t.Error("the call after the engine went quiet did not get a new, open instance")
	}
}
