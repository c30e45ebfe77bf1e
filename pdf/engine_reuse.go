package pdf

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
)

// When a PDFium instance serves another call. Starting one (instantiating PDFium's WebAssembly,
// running its initialisers, loading its fonts on the first page drawn) costs more CPU than
// drawing a simple page, so an instance whose call ended well waits, its documents closed, for
// the next call. It is thrown away instead, and the pool starts a new one when one is needed,
// when:
//
//   - its call failed, panicked or ran past the engine's deadline: PDFium's state after an error
//     is not trusted;
//   - its WebAssembly memory grew past instanceMemory: memory an instance has grown to is never
//     given back, and a waiting instance should hold little;
//   - it has served instanceUses calls: what PDFium keeps between documents (its caches) is
//     bounded.
//
// Waiting instances are closed once no call has given its instance back to wait for
// instanceIdle (a call in progress keeps its own), and the memory they held is given back to the
// operating system: a process at rest (an API between uploads, a worker between seals) keeps
// PDFium's compiled code, some 14 MiB, but none of its instances, 18 to 48 MiB each.
const (
	instanceUses   = 64
	instanceMemory = 48 << 20
	instanceIdle   = 15 * time.Second
)

// instance is a PDFium instance borrowed for one call.
type instance struct {
	pdfium.Pdfium
	uses   int  // calls served, this one included once it is given back
	failed bool // a call into it failed
}

// slots holds one token per instance in use, so that at most EngineConfig.Instances calls run
// at once; idle holds the instances waiting for their next call. Every instance the pool has
// handed out is in use or idle, so a call that holds a slot and finds no idle instance gets a
// new one from the pool without waiting.
var (
	slots = sync.OnceValue(func() chan struct{} { return make(chan struct{}, resolvedEngineConfig().Instances) })
	idle  = sync.OnceValue(func() chan *instance { return make(chan *instance, resolvedEngineConfig().Instances) })
)

var errNoInstance = errors.New("every PDFium instance stayed busy")

// borrow waits up to instanceWait for a free place among the engine's instances, and returns an
// idle instance or a new one.
func borrow(pool pdfium.Pool) (*instance, error) {
	wait := time.NewTimer(instanceWait)
	defer wait.Stop()
	select {
	case slots() <- struct{}{}:
	case <-wait.C:
		return nil, fmt.Errorf("pdf: get a PDFium instance: %w for %v", errNoInstance, instanceWait)
	}
	select {
	case in := <-idle():
		return in, nil
	default:
	}
	inst, err := pool.GetInstance(instanceWait)
	if err != nil {
		<-slots()
		return nil, fmt.Errorf("pdf: get a PDFium instance: %w", err)
	}
	return &instance{Pdfium: inst}, nil
}

// taint marks inst as not to serve another call.
func taint(inst pdfium.Pdfium) {
	if in, ok := inst.(*instance); ok {
		in.failed = true
	}
}

// giveBack ends a call on in: the instance waits for the next call, or is thrown away (see
// instanceUses). panicked says that the call panicked.
func (in *instance) giveBack(panicked bool) {
	defer func() { <-slots() }()
	in.uses++
	mod := moduleOf(in)
	if panicked || in.failed || in.uses >= instanceUses || mod == nil || mod.IsClosed() ||
		mod.Memory() == nil || mod.Memory().Size() > instanceMemory {
		_ = in.Close() // the pool destroys the instance's module
		return
	}
	idle() <- in
	retireWhenQuiet()
}

// retireTimer closes the waiting instances once none has been given back to wait for
// instanceIdle: every call that gives its instance back to wait pushes it back.
var retireTimer struct {
	sync.Mutex
	*time.Timer
}

// retireWhenQuiet (re)starts retireTimer.
func retireWhenQuiet() {
	retireTimer.Lock()
	defer retireTimer.Unlock()
	if retireTimer.Timer == nil {
		retireTimer.Timer = time.AfterFunc(instanceIdle, retireIdle)
		return
	}
	retireTimer.Reset(instanceIdle)
}

// retireIdle closes every waiting instance and, if there was one, gives the memory back to the
// operating system now rather than after the runtime's next collection, which a process at rest
// may not reach for minutes. A call that starts meanwhile finds no waiting instance and gets a
// new one.
func retireIdle() {
	if raceBuild {
		raceSerial.Lock() // closing an instance runs PDFium's own clean-up
		defer raceSerial.Unlock()
	}
	closed := 0
	for {
		select {
		case in := <-idle():
			_ = in.Close()
			closed++
		default:
			if closed > 0 {
				// Two collections: the first moves sync.Pool's items (the proof's page buffers)
				// to its victim cache, the second frees them.
				runtime.GC()
				debug.FreeOSMemory()
			}
			return
		}
	}
}
