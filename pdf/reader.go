package pdf

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ReaderConfig sizes the processes that read uploads. Zero members take the defaults.
//
// Normalize parses an upload in a child process of its own (the running executable started
// again), never in the calling process: a parser's memory and time grow with what a document
// says, not only with its size (an array of thirty million numbers packed into a few kilobytes
// costs gigabytes to parse), and no limit written in advance catches every such shape. The
// kernel does: the child's writable memory is capped (RLIMIT_DATA), it is killed at its deadline,
// it is the first process the out-of-memory killer picks, and it gets no environment from its
// parent (no database address, no seal password). Whatever an upload does, the calling process
// only waits, holding the upload and, once read, the normalised document.
type ReaderConfig struct {
	// MemoryMiB caps the writable memory of one reading process: the upload, the parsed
	// document and the one being written. A document that needs more is refused (ErrLimit).
	// Default 512 MiB.
	MemoryMiB int
	// Timeout is the longest one reading may take; a document that takes longer is refused
	// (ErrLimit). Default 30 s.
	Timeout time.Duration
	// Processes is the most reading processes at once per process; more uploads wait their
	// turn. Default 2.
	Processes int
}

// Defaults of ReaderConfig.
const (
	DefaultReaderMemoryMiB = 512
	DefaultReaderTimeout   = 30 * time.Second
	DefaultReaderProcesses = 2
)

var (
	readerConfig ReaderConfig
	readerSlots  = sync.OnceValue(func() chan struct{} { return make(chan struct{}, resolvedReaderConfig().Processes) })
	readerUsed   sync.Once
)

// ConfigureReader sets the size of the reading processes. It must be called before the first
// Normalize; later calls with another configuration return an error.
func ConfigureReader(c ReaderConfig) error {
	started := true
	readerUsed.Do(func() { started = false })
	if started && c != readerConfig {
		return errors.New("pdf: ConfigureReader after the first Normalize")
	}
	readerConfig = c
	return nil
}

// resolvedReaderConfig is the reader's configuration with the defaults filled in.
func resolvedReaderConfig() ReaderConfig {
	c := readerConfig
	if c.MemoryMiB <= 0 {
		c.MemoryMiB = DefaultReaderMemoryMiB
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultReaderTimeout
	}
	if c.Processes <= 0 {
		c.Processes = DefaultReaderProcesses
	}
	return c
}

// readerEnv, set in a process's environment, makes it a reading process (see init below).
const readerEnv = "SOBRE_PDF_READER"

// readerJob is what a reading process is asked, in its environment; the document comes on its
// standard input.
type readerJob struct {
	Limits     Limits
	MemoryMiB  int
	CPUSeconds uint64 // the kernel stops the process past this much CPU time
}

// readerResult is what a reading process answers on its standard output.
type readerResult struct {
	Normalized Normalized
	Kind       string // "" when Message is empty, else which of the package's errors it wraps
	Message    string
}

func init() {
	if os.Getenv(readerEnv) != "" {
		os.Exit(runReader(os.Getenv(readerEnv), os.Stdin, os.Stdout))
	}
}

// runReader is the whole life of a reading process: cap its memory, read the document, normalise
// it without PDFium (the parent checks the result with PDFium, within PDFium's own caps), and
// write the answer. It returns the process's exit code.
func runReader(spec string, in io.Reader, out io.Writer) int {
	var job readerJob
	if err := json.Unmarshal([]byte(spec), &job); err != nil || job.MemoryMiB <= 0 {
		fmt.Fprintf(os.Stderr, "pdf reader: bad job %q\n", spec)
		return 3
	}
	capMemory(job.MemoryMiB)
	if job.CPUSeconds > 0 {
		// The parent kills the process at its deadline; this holds if the parent is gone.
		_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: job.CPUSeconds, Max: job.CPUSeconds})
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pdf reader: read the document: %v\n", err)
		return 3
	}
	var res readerResult
	res.Normalized, err = normalize(data, job.Limits, false)
	if err != nil {
		res.Normalized = Normalized{}
		res.Kind, res.Message = errorKind(err), err.Error()
	}
	if err := gob.NewEncoder(out).Encode(&res); err != nil {
		fmt.Fprintf(os.Stderr, "pdf reader: write the answer: %v\n", err)
		return 3
	}
	return 0
}

// capMemory makes the kernel refuse the process more than mib MiB of writable memory (the Go
// runtime then stops with "out of memory"), has the garbage collector work harder as the process
// nears it, and offers the process first to the out-of-memory killer of its container.
func capMemory(mib int) {
	limit := uint64(mib) << 20
	if raceBuild {
		// The race detector's shadow memory (tests only) would refuse documents a normal
		// build reads well within the cap.
		limit *= 4
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintf(os.Stderr, "pdf reader: cap memory: %v\n", err)
		os.Exit(3)
	}
	debug.SetMemoryLimit(int64(limit) * 3 / 4)
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
}

// errorKind names which of the package's errors err wraps, for the parent to wrap it again.
func errorKind(err error) string {
	for kind, target := range readerKinds {
		if errors.Is(err, target) {
			return kind
		}
	}
	return "other"
}

var readerKinds = map[string]error{"limit": ErrLimit, "unsupported": ErrUnsupported, "encrypted": ErrEncrypted, "notpdf": ErrNotPDF}

// readerError is an error a reading process returned: its message as it wrote it, wrapping the
// package's error of the same kind.
type readerError struct {
	kind error
	msg  string
}

func (e *readerError) Error() string { return e.msg }
func (e *readerError) Unwrap() error { return e.kind }

// readInChild runs normalize(data, limits, false) in a reading process sized by c.
func readInChild(ctx context.Context, data []byte, limits Limits, c ReaderConfig) (Normalized, error) {
	slots := readerSlots()
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return Normalized{}, fmt.Errorf("pdf: wait for a reading process: %w", context.Cause(ctx))
	}
	spec, err := json.Marshal(readerJob{Limits: limits, MemoryMiB: c.MemoryMiB, CPUSeconds: uint64(2*c.Timeout/time.Second) + 1})
	if err != nil {
		return Normalized{}, err
	}
	exe, err := executable()
	if err != nil {
		return Normalized{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, exe)
	// Nothing of this process's environment: the child needs none of its secrets. Its fatal
	// errors print one line, without goroutine dumps.
	cmd.Env = []string{readerEnv + "=" + string(spec), "GOMAXPROCS=" + fmt.Sprint(min(runtime.GOMAXPROCS(0), 2)), "GOTRACEBACK=none"}
	cmd.Stdin = bytes.NewReader(data)
	var stdout bytes.Buffer
	stderr := &head{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &limitedWriter{w: &stdout, left: int64(c.MemoryMiB) << 20}, stderr
	cmd.WaitDelay = 5 * time.Second
	cmd.SysProcAttr = childAttributes()
	// The kernel's parent-death signal follows the thread that started the process: that thread
	// is held until the process ends, so that the Go scheduler never retires it before.
	runErr := func() error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		return cmd.Run()
	}()
	switch {
	case ctx.Err() != nil:
		return Normalized{}, fmt.Errorf("pdf: reading stopped: %w", context.Cause(ctx))
	case runCtx.Err() != nil:
		return Normalized{}, fmt.Errorf("%w: reading it takes longer than %v", ErrLimit, c.Timeout)
	case runErr != nil:
		var status *syscall.WaitStatus
		if cmd.ProcessState != nil {
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
				status = &ws
			}
		}
		return Normalized{}, whyStopped(status, runErr, stderr.String(), c)
	}
	var res readerResult
	if err := gob.NewDecoder(&stdout).Decode(&res); err != nil {
		return Normalized{}, fmt.Errorf("pdf: the reading process's answer: %w", err)
	}
	if res.Message != "" {
		kind, ok := readerKinds[res.Kind]
		if !ok {
			return Normalized{}, errors.New(res.Message)
		}
		return Normalized{}, &readerError{kind: kind, msg: res.Message}
	}
	return res.Normalized, nil
}

// executable is the program a reading process runs: this one. On Linux /proc/self/exe stays
// valid when the file was replaced on disk (a deployment in progress).
func executable() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("pdf: find this executable to read in a child process: %w", err)
	}
	return exe, nil
}

// whyStopped is the error of a reading process that ended without an answer. The process
// started, so the document is the cause, except when the process says itself that it was not
// asked properly (exit code 3) or never ran:
//
//   - it ran out of memory under its cap, whatever its exit code: the Go runtime's "out of
//     memory" or "cannot allocate memory", a thread it could not start ("pthread_create
//     failed", "failed to create new OS thread": thread stacks are writable memory too, so
//     which allocation fails first is chance), ThreadSanitizer's "failed to allocate" (a
//     race-detector build), or a kill by the out-of-memory killer (SIGKILL): ErrLimit, naming
//     the cap;
//   - the Go runtime stopped it otherwise (exit code 2: a stack overflow on a deeply nested
//     document, say) or a signal did: ErrUnsupported, with the runtime's first line, since the
//     same reader reads other documents;
//   - anything else (ThreadSanitizer's exit code 66 for a data race, say) is not the
//     document's doing, and wraps runErr.
//
// status is nil when the process never started.
func whyStopped(status *syscall.WaitStatus, runErr error, stderr string, c ReaderConfig) error {
	if status == nil || (status.Exited() && status.ExitStatus() == 3) {
		return fmt.Errorf("pdf: the reading process failed: %w: %s", runErr, firstLine(stderr))
	}
	for _, words := range []string{"out of memory", "cannot allocate memory", "failed to allocate",
		"pthread_create failed", "failed to create new OS thread"} {
		if strings.Contains(stderr, words) {
			return fmt.Errorf("%w: reading it needs more than %d MiB of memory", ErrLimit, c.MemoryMiB)
		}
	}
	switch {
	case status.Signaled() && status.Signal() == syscall.SIGKILL:
		return fmt.Errorf("%w: reading it needs more than %d MiB of memory", ErrLimit, c.MemoryMiB)
	case status.Signaled():
		return fmt.Errorf("%w: reading it stopped the reader (%v)", ErrUnsupported, status.Signal())
	case status.ExitStatus() == 2:
		return fmt.Errorf("%w: reading it stopped the reader (%s)", ErrUnsupported, firstLine(stderr))
	}
	return fmt.Errorf("pdf: the reading process failed: %w: %s", runErr, firstLine(stderr))
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// head keeps the first max bytes written to it.
type head struct {
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.b = append(h.b, p[:min(len(p), h.max-len(h.b))]...)
	return len(p), nil
}

func (h *head) String() string { return string(h.b) }

// limitedWriter writes at most left bytes to w, then fails.
type limitedWriter struct {
	w    io.Writer
	left int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errors.New("pdf: the reading process wrote too much")
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// IsDocumentError reports whether err says something about a document (it is not a PDF, it is
// encrypted, over a limit, or cannot be shown as it would be sealed), as opposed to a failure of
// the reading itself (the context ended, a process could not start).
func IsDocumentError(err error) bool {
	return errors.Is(err, ErrNotPDF) || errors.Is(err, ErrEncrypted) || errors.Is(err, ErrLimit) || errors.Is(err, ErrUnsupported)
}
