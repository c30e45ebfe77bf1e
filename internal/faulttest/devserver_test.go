package faulttest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// devServer is a Temporal dev server of the test's own (bin/temporal, built by `make tools` and
// by `make test`), its state in a SQLite file so that it survives a stop: it can be killed and
// started again on the same port with the same workflows.
type devServer struct {
	t      *testing.T
	cli    string
	addr   string
	dbFile string
	logDir string
	starts int
	cmd    *exec.Cmd
	exited chan error // receives the running server's exit

	startTook time.Duration // how long the last start took to answer
}

// temporalCLI returns the path of bin/temporal at the module's root, or skips the test (fails
// it when services are required, as in `make test`).
func temporalCLI(t *testing.T) string {
	t.Helper()
	return toolBinary(t, "temporal")
}

// toolBinary returns the path of bin/name at the module's root (built by `make tools` and by
// `make test`), or skips the test (fails it when services are required, as in `make test`).
func toolBinary(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	cli := filepath.Join(dir, "bin", name)
	if _, err := os.Stat(cli); err != nil {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatalf("%s: %v (make tools builds it)", cli, err)
		}
		t.Skipf("%s not built: run `make tools`", cli)
	}
	return cli
}

// newDevServer starts a dev server on a free loopback port; it is killed with the test.
func newDevServer(t *testing.T) *devServer {
	d := &devServer{t: t, cli: temporalCLI(t), addr: freeAddr(t), logDir: t.TempDir()}
	d.dbFile = filepath.Join(d.logDir, "temporal.db")
	d.start()
	t.Cleanup(func() {
		d.kill()
		logsOnFailure(t, d.logDir, "temporal", d.starts)
	})
	return d
}

// startLogged starts cmd with its output in dir/name-n.log, where logsOnFailure finds it.
func startLogged(t *testing.T, cmd *exec.Cmd, dir, name string, n int) {
	t.Helper()
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, n)))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

// logsOnFailure logs the end of each of a service's logs, dir/name-1.log to name-{starts}.log,
// when t failed.
func logsOnFailure(t *testing.T, dir, name string, starts int) {
	if !t.Failed() {
		return
	}
	for i := 1; i <= starts; i++ {
		b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, i)))
		t.Logf("%s-%d.log:\n%s", name, i, lastLines(string(b), 20))
	}
}

// start runs the server (as scripts/stack.sh does, without the Web UI) and waits until its
// namespace answers.
func (d *devServer) start() {
	d.t.Helper()
	d.starts++
	begun := time.Now()
	_, port, _ := net.SplitHostPort(d.addr)
	d.cmd = exec.Command(d.cli, "server", "start-dev", "--ip", "127.0.0.1", "--port", port, "--headless",
		"--db-filename", d.dbFile,
		"--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal",
		"--search-attribute", "EnvelopeId=Keyword", "--search-attribute", "EnvelopeStatus=Keyword",
		"--search-attribute", "TeamId=Keyword",
		"--log-level", "warn")
	startLogged(d.t, d.cmd, d.logDir, "temporal", d.starts)
	d.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan<- error) { exited <- cmd.Wait() }(d.cmd, d.exited)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-d.exited:
			d.cmd = nil
			d.t.Fatalf("temporal dev server exited: %v", err)
		default:
		}
		// The namespace answers a little after the frontend reports SERVING.
		if exec.Command(d.cli, "workflow", "list", "--address", d.addr, "--limit", "1").Run() == nil {
			d.startTook = time.Since(begun)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	d.t.Fatal("temporal dev server did not answer within 60s")
}

// kill stops the server with SIGKILL (no shutdown: what a crashed host or an OOM kill leaves)
// and waits until it is gone, so that the SQLite file is free for the next start.
func (d *devServer) kill() {
	if d.cmd == nil {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.exited
	d.cmd = nil
}
