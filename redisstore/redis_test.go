package redisstore_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server of the test's own, on a free loopback port,
// without persistence, in a temporary directory.
type redisServer struct {
	dir  string
	port int
	args []string // before the port, bind and dir flags: a config file first
	cmd  *exec.Cmd
}

// plainArgs run a server without persistence.
var plainArgs = []string{"--save", "", "--appendonly", "no"}

// startRedis starts a redis-server for t and stops it in cleanup. A machine
// without redis-server fails the test: these tests never run on a mock.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	r, err := launchRedis(t.TempDir(), plainArgs...)
	if err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(r.stop)
	return r
}

// launchRedis starts a redis-server with args in dir on a free port, trying
// a few ports in case another process takes the one found free first.
func launchRedis(dir string, args ...string) (*redisServer, error) {
	if err := installed("redis-server"); err != nil {
		return nil, err
	}
	var err error
	for range 5 {
		r := &redisServer{dir: dir, args: args}
		if r.port, err = freePort(); err != nil {
			return nil, err
		}
		if err = r.start(); err == nil {
			return r, nil
		}
	}
	return nil, err
}

// installed fails with how to install a missing program of the
// redis-server package: these tests never run on a mock.
func installed(program string) error {
	if _, err := exec.LookPath(program); err != nil {
		return fmt.Errorf("%s not installed (apt-get install -y redis-server): %w", program, err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs the server on r.port and waits until it answers PING.
func (r *redisServer) start() error {
	args := append(append([]string{}, r.args...), "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--dir", r.dir, "--logfile", r.dir+"/redis.log")
	cmd := exec.Command("redis-server", args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited before answering (%v); see %s/redis.log", err, r.dir)
		default:
		}
		if ping(r.Addr()) == nil {
			r.cmd = cmd
			go func() { <-exited }()
			return nil
		}
		time.Sleep(10 * time.Millisecond) // waiting for the port to accept
	}
	_ = cmd.Process.Kill()
	return errors.New("did not answer PING within 20s")
}

// ping sends one PING over a fresh connection.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("answered %q", line)
	}
	return nil
}

// Addr is host:port of the server.
func (r *redisServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.port)) }

// stop kills the server (a frozen one too) and waits until the port is closed.
func (r *redisServer) stop() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	r.cmd = nil
	for ping(r.Addr()) == nil {
		time.Sleep(10 * time.Millisecond) // waiting for the port to close
	}
}

// restart starts a new server on the same port (empty: no persistence).
func (r *redisServer) restart(t testing.TB) {
	t.Helper()
	if err := r.start(); err != nil {
		t.Fatalf("redis-server restart: %v", err)
	}
}

// freeze stops the process (SIGSTOP): connections open, nothing answers.
func (r *redisServer) freeze(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// thaw lets a frozen server go on (SIGCONT).
func (r *redisServer) thaw(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// client returns a go-redis client of its own (its own connections) to the
// server, closed in cleanup.
func (r *redisServer) client(t testing.TB, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := &redis.Options{Addr: r.Addr()}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// exampleRedis is the server the package examples use, started by TestMain.
var exampleRedis *redisServer

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redisstore-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	exampleRedis, err = launchRedis(dir, plainArgs...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redis-server:", err)
		os.Exit(1)
	}
	code := m.Run()
	stopShared()
	exampleRedis.stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
