package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// EngineConfig sizes the PDFium engine of the process. Zero members take the defaults.
type EngineConfig struct {
	// Instances is the most PDFium instances that run at once; more calls wait. Default: the
	// number of CPUs, at least 2 and at most 8.
	Instances int
	// MemoryMiB caps each instance's WebAssembly memory: PDFium can never hold more, whatever
	// the document. Default 256 MiB.
	MemoryMiB int
	// Deadline is the longest one call (drawing a page, reading a document's pages) may take
	// before it is stopped. Default 15 s.
	Deadline time.Duration
}

// Defaults of EngineConfig.
const (
	DefaultEngineMemoryMiB = 256
	DefaultEngineDeadline  = 15 * time.Second
)

// deadline is the engine's deadline for one call.
func deadline() time.Duration {
	if engineConfig.Deadline > 0 {
		return engineConfig.Deadline
	}
	return DefaultEngineDeadline
}

// instanceWait is how long a call waits for a free PDFium instance before giving up.
const instanceWait = time.Minute

var (
	engineConfig   EngineConfig
	engineStarted  atomic.Bool
	errEngineAfter = errors.New("pdf: ConfigureEngine after the engine started")
)

// ConfigureEngine sets the engine's size. It must be called before the first call that uses
// PDFium (FindText, RenderPage, Normalize, Prove); later calls return an error.
func ConfigureEngine(c EngineConfig) error {
	if engineStarted.Load() && c != engineConfig {
		return errEngineAfter
	}
	engineConfig = c
	return nil
}

// engine is the PDFium pool, started on first use: compiling PDFium's 4 MB of WebAssembly takes
// one to two seconds, so it is done once per process. Each call borrows an instance of its own
// (PDFium is not re-entrant) and gives it back with its documents closed; the instance serves
// later calls unless the call failed, the instance grew or has served long (see instanceUses).
// Instances get no file system (the document is handed over in memory) and their output goes
// nowhere. Their memory is capped, and a call that runs too long is stopped by closing its
// instance's module (see withDeadline).
var engine = sync.OnceValues(func() (pdfium.Pool, error) {
	engineStarted.Store(true)
	c := resolvedEngineConfig()
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:  0, // the instances that wait are this package's (see instanceIdle)
		MaxIdle:  c.Instances,
		MaxTotal: c.Instances,
		FSConfig: wazero.NewFSConfig(),
		// 64 KiB WebAssembly pages; closing a module stops a call running in it.
		RuntimeConfig: wazero.NewRuntimeConfig().WithMemoryLimitPages(uint32(c.MemoryMiB) * 16).WithCloseOnContextDone(true),
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("pdf: start PDFium: %w", err)
	}
	return pool, nil
})

// resolvedEngineConfig is the engine's configuration with the defaults filled in.
func resolvedEngineConfig() EngineConfig {
	c := engineConfig
	if c.Instances <= 0 {
		c.Instances = min(max(runtime.GOMAXPROCS(0), 2), 8)
	}
	if c.MemoryMiB <= 0 {
		c.MemoryMiB = DefaultEngineMemoryMiB
	}
	return c
}

// openDocument borrows a PDFium instance and opens data in it, returning the instance, the
// document, its page count and the function that closes both. Callers recover PDFium's panics
// themselves (a deferred recover only works in the panicking call's own frames).
func openDocument(data []byte) (inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, pages int, done func(), err error) {
	inst, docs, counts, done, err := openDocuments(data)
	if err != nil {
		return nil, doc, 0, nil, err
	}
	return inst, docs[0], counts[0], done, nil
}

// openDocuments is openDocument for several documents open at once in one instance: docs[i]
// and pages[i] are those of data[i].
func openDocuments(data ...[]byte) (inst pdfium.Pdfium, docs []references.FPDF_DOCUMENT, pages []int, done func(), err error) {
	release := func() {}
	if raceBuild {
		raceSerial.Lock()
		release = sync.OnceFunc(raceSerial.Unlock)
	}
	handedOver := false
	defer func() {
		if !handedOver {
			release() // an error, or a panic of PDFium's on the way
		}
	}()
	pool, err := engine()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	in, err := borrow(pool)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	inst = in
	// done is deferred by the callers: a panic of PDFium's on the way retires the instance and
	// goes on to the caller's own recover.
	done = func() {
		v := recover()
		defer release()
		for _, doc := range docs {
			if _, err := inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc}); err != nil {
				taint(inst)
			}
		}
		in.giveBack(v != nil)
		if v != nil {
			panic(v)
		}
	}
	for _, d := range data {
		// PDFium reads the document from here as it needs it, rather than from a copy in its
		// own memory: an instance holds no copy of a document, and does not grow with one.
		opened, err := inst.OpenDocument(&requests.OpenDocument{FileReader: bytes.NewReader(d), FileReaderSize: int64(len(d))})
		if err != nil {
			taint(inst)
			done()
			if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
				return nil, nil, nil, nil, fmt.Errorf("%w: PDFium: %w", ErrEncrypted, err)
			}
			return nil, nil, nil, nil, fmt.Errorf("%w: PDFium cannot open it: %w", ErrNotPDF, err)
		}
		docs = append(docs, opened.Document)
		count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: opened.Document})
		if err != nil {
			taint(inst)
			done()
			return nil, nil, nil, nil, fmt.Errorf("%w: PDFium page count: %w", ErrNotPDF, err)
		}
		pages = append(pages, count.PageCount)
	}
	handedOver = true
	return inst, docs, pages, done, nil
}

// raceSerial lets one PDFium instance run at a time in a race-detector build. wazero caches the
// type key of a host function lazily, unsynchronised, in a value every instance shares (wazero
// issue 2520): two instances write the same string, which is harmless but reported by the race
// detector. Other builds run instances side by side.
var raceSerial sync.Mutex

// withDeadline runs f, which calls PDFium through inst, and stops it if it has not returned
// within d: the instance's WebAssembly module is closed, which ends the call in progress (wazero
// checks for it as the code runs). The instance is unusable afterwards; its done function still
// returns it to the pool, which replaces it. A call stopped so returns an error wrapping
// ErrLimit.
func withDeadline(inst pdfium.Pdfium, d time.Duration, f func() error) error {
	mod := moduleOf(inst)
	if mod == nil || d <= 0 {
		return f()
	}
	var stopped atomic.Bool
	timer := time.AfterFunc(d, func() {
		stopped.Store(true)
		_ = mod.CloseWithExitCode(context.Background(), 124)
	})
	err := f()
	timer.Stop()
	if stopped.Load() {
		return fmt.Errorf("%w: PDFium took longer than %v", ErrLimit, d)
	}
	if err != nil {
		taint(inst)
	}
	return err
}

// moduleOf finds the WebAssembly module behind a go-pdfium instance. go-pdfium keeps it in an
// exported field of a type it does not export, so it is read by reflection; nil if that ever
// changes (then calls run without a deadline, and the test of the deadline fails).
func moduleOf(inst pdfium.Pdfium) (mod api.Module) {
	defer func() {
		if recover() != nil {
			mod = nil
		}
	}()
	v := reflect.ValueOf(inst.GetImplementation())
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	mod, _ = f.Interface().(api.Module)
	return mod
}
