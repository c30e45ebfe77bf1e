package faulttest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// pgCluster is a PostgreSQL cluster of the test's own, in a directory of its own, so that the
// test can stop it: initdb as scripts/stack.sh runs it, the server binaries of Debian's
// postgresql (/usr/lib/postgresql/*/bin).
type pgCluster struct {
	t    *testing.T
	bin  string
	dir  string
	port string
}

// newPGCluster creates and starts a cluster on a free loopback port; it is stopped and removed
// with the test.
func newPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if os.Getenv("SOBRE_TEST_REQUIRE_SERVICES") != "" {
			t.Fatal("no PostgreSQL server binaries under /usr/lib/postgresql (scripts/stack.sh installs them)")
		}
		t.Skip("no PostgreSQL server binaries under /usr/lib/postgresql")
	}
	sort.Strings(bins)
	_, port, _ := net.SplitHostPort(freeAddr(t))
	// Not t.TempDir(): as root, the server runs as postgres, which must reach the directory.
	dir, err := os.MkdirTemp("/var/tmp", "sobre-fault-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &pgCluster{t: t, bin: filepath.Dir(bins[len(bins)-1]), dir: dir, port: port}
	if os.Getuid() == 0 {
		if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v %s", dir, err, out)
		}
	}
	c.run("initdb", "-D", dir, "-U", "sobre", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
	// fsync off, as the stack's fast cluster: a killed server leaves its writes in the kernel, so
	// recovery holds. Not synchronous_commit off: a commit acknowledged before its WAL is written
	// is lost by an immediate stop, which a production server does not do.
	conf := "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nport = " + port +
		"\nmax_connections = 100\nfsync = off\n"
	f, err := os.OpenFile(filepath.Join(dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	c.start()
	t.Cleanup(func() {
		_ = c.command("pg_ctl", "-D", dir, "-m", "immediate", "-w", "stop").Run()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Logf("postgresql server.log:\n%s", lastLines(string(b), 20))
		}
		os.RemoveAll(dir)
	})
	return c
}

// url is the cluster's DATABASE_URL.
func (c *pgCluster) url() string {
	return fmt.Sprintf("postgres://sobre@127.0.0.1:%s/postgres?sslmode=disable", c.port)
}

// command runs a PostgreSQL program as the cluster's owner: postgres when the test runs as root.
func (c *pgCluster) command(program string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, program)
	if os.Getuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (c *pgCluster) run(program string, args ...string) {
	c.t.Helper()
	if out, err := c.command(program, args...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v %s", program, err, out)
	}
}

func (c *pgCluster) start() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.dir, "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start")
}

// stopImmediately stops the server without a checkpoint: what a crash leaves (the next start
// recovers from the WAL).
func (c *pgCluster) stopImmediately() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.dir, "-m", "immediate", "-w", "stop")
}

// (b) PostgreSQL is stopped with `pg_ctl stop -m immediate` mid batch for faultOutage, then
// started again on the same files: the API answers while it is away without a 500 lacking a code,
// the worker's activities retry, and the batch ends as every fault test's does.
func TestPostgresStoppedMidBatch(t *testing.T) {
	faultTest(t)
	pg := newPGCluster(t)
	s := newSystemAt(t, ownMail(t, services{db: pg.url()}))
	s.startAPIAndWorker()
	b := newBatch(s, faultBatch(t), nil)
	outage := faultOutage(t)
	b.run(func() {
		pg.stopImmediately()
		time.Sleep(outage)
		pg.start()
	})
	b.check(3 * time.Minute)
}
