package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tppkit/xs2a/redisstore"
)

// kind is a way to run Redis, named by the go-redis constructor that
// reaches it.
type kind string

const (
	single       kind = "NewClient"         // one redis-server
	clusterKind  kind = "NewClusterClient"  // a Redis Cluster of three masters
	sentinelKind kind = "NewFailoverClient" // a master watched by a Sentinel
)

// kinds are the ways to run Redis every fleet test runs against.
var kinds = []kind{single, clusterKind, sentinelKind}

// masterName is the name the Sentinel monitors the master under.
const masterName = "mymaster"

// deployment is Redis run as one kind, in dir: the servers holding data
// (one, or the Cluster's three masters) and, for Sentinel, the Sentinel.
type deployment struct {
	kind     kind
	dir      string
	nodes    []*redisServer
	sentinel *redisServer
}

// deploy starts a deployment of k for t alone and stops it in cleanup. A
// machine without redis-server or redis-cli fails the test.
func deploy(t testing.TB, k kind) *deployment {
	t.Helper()
	d, err := launch(t.TempDir(), k)
	if err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	t.Cleanup(d.stop)
	return d
}

// launch starts a deployment of k in dir.
func launch(dir string, k kind) (*deployment, error) {
	switch k {
	case clusterKind:
		return launchCluster(dir)
	case sentinelKind:
		return launchSentinel(dir)
	}
	r, err := launchRedis(dir, plainArgs...)
	if err != nil {
		return nil, err
	}
	return &deployment{kind: k, dir: dir, nodes: []*redisServer{r}}, nil
}

// launchCluster starts three cluster-enabled servers, joins them with
// redis-cli --cluster create (no replicas) and waits until each says
// cluster_state:ok.
func launchCluster(dir string) (*deployment, error) {
	if err := installed("redis-cli"); err != nil {
		return nil, err
	}
	d := &deployment{kind: clusterKind, dir: dir}
	for i := range 3 {
		r, err := launchClusterNode(filepath.Join(dir, "node"+strconv.Itoa(i)))
		if err != nil {
			d.stop()
			return nil, err
		}
		d.nodes = append(d.nodes, r)
	}
	args := slices.Concat([]string{"--cluster", "create"}, d.nodeAddrs(), []string{"--cluster-replicas", "0", "--cluster-yes"})
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		d.stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := d.clusterReady(); err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

// launchClusterNode starts one cluster-enabled server in dir, its cluster
// bus on a free port of its own (the default, port+10000, may be taken or
// out of range).
func launchClusterNode(dir string) (*redisServer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var err error
	for range 3 {
		var bus int
		if bus, err = freePort(); err != nil {
			return nil, err
		}
		var r *redisServer
		r, err = launchRedis(dir, slices.Concat(plainArgs, []string{"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-port", strconv.Itoa(bus)})...)
		if err == nil {
			return r, nil
		}
	}
	return nil, err
}

// clusterReady polls CLUSTER INFO on every node until it says
// cluster_state:ok, a bounded number of times.
func (d *deployment) clusterReady() error {
	for _, n := range d.nodes {
		c := redis.NewClient(&redis.Options{Addr: n.Addr()})
		err := poll("cluster_state:ok on "+n.Addr(), func() bool {
			info, err := c.ClusterInfo(context.Background()).Result()
			return err == nil && strings.Contains(info, "cluster_state:ok")
		})
		_ = c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// launchSentinel starts a master and a Sentinel monitoring it (quorum 1),
// and waits until the Sentinel names the master.
func launchSentinel(dir string) (*deployment, error) {
	d := &deployment{kind: sentinelKind, dir: dir}
	masterDir, sentinelDir := filepath.Join(dir, "master"), filepath.Join(dir, "sentinel")
	for _, sub := range []string{masterDir, sentinelDir} {
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, err
		}
	}
	master, err := launchRedis(masterDir, plainArgs...)
	if err != nil {
		return nil, err
	}
	d.nodes = []*redisServer{master}
	conf := filepath.Join(sentinelDir, "sentinel.conf")
	// No failover in a test: there is no replica, and a frozen master must
	// stay the master.
	text := fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %[1]s 600000\n",
		masterName, master.port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		d.stop()
		return nil, err
	}
	if d.sentinel, err = launchRedis(sentinelDir, conf, "--sentinel"); err != nil {
		d.stop()
		return nil, err
	}
	if err := d.sentinelReady(); err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

// sentinelReady polls the Sentinel until it names the master's address.
func (d *deployment) sentinelReady() error {
	s := redis.NewSentinelClient(&redis.Options{Addr: d.sentinel.Addr()})
	defer s.Close()
	return poll("the Sentinel naming the master", func() bool {
		addr, err := s.GetMasterAddrByName(context.Background(), masterName).Result()
		return err == nil && len(addr) == 2 && addr[1] == strconv.Itoa(d.nodes[0].port)
	})
}

// poll calls ready until it reports true, at most 2000 times, 10ms apart.
func poll(what string, ready func() bool) error {
	for range 2000 {
		if ready() {
			return nil
		}
		time.Sleep(10 * time.Millisecond) // waiting for servers to agree
	}
	return fmt.Errorf("no %s after 2000 tries", what)
}

func (d *deployment) nodeAddrs() []string {
	addrs := make([]string, len(d.nodes))
	for i, n := range d.nodes {
		addrs[i] = n.Addr()
	}
	return addrs
}

// client returns a go-redis client of d's kind (redis.NewClient,
// NewClusterClient or NewFailoverClient) with connections of its own,
// closed in cleanup.
func (d *deployment) client(t testing.TB, opts ...func(*redis.UniversalOptions)) redis.UniversalClient {
	t.Helper()
	o := &redis.UniversalOptions{Addrs: d.nodeAddrs()}
	if d.sentinel != nil {
		o.Addrs, o.MasterName = []string{d.sentinel.Addr()}, masterName
	}
	for _, f := range opts {
		f(o)
	}
	var c redis.UniversalClient
	switch d.kind {
	case clusterKind:
		c = redis.NewClusterClient(o.Cluster())
	case sentinelKind:
		c = redis.NewFailoverClient(o.Failover())
	default:
		c = redis.NewClient(o.Simple())
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// freeze stops every server holding data (SIGSTOP); the Sentinel goes on.
func (d *deployment) freeze(t testing.TB) {
	t.Helper()
	for _, n := range d.nodes {
		n.freeze(t)
	}
}

// thaw lets the frozen servers go on.
func (d *deployment) thaw(t testing.TB) {
	t.Helper()
	for _, n := range d.nodes {
		n.thaw(t)
	}
}

// kill stops every server holding data; the Sentinel goes on.
func (d *deployment) kill(testing.TB) {
	for _, n := range d.nodes {
		n.stop()
	}
}

// restart starts the killed servers again on their ports, empty; a
// Cluster's nodes keep their nodes.conf and form the same cluster again.
func (d *deployment) restart(t testing.TB) {
	t.Helper()
	for _, n := range d.nodes {
		n.restart(t)
	}
	if d.kind == clusterKind {
		if err := d.clusterReady(); err != nil {
			t.Fatal(err)
		}
	}
}

// stop stops every server of d.
func (d *deployment) stop() {
	for _, n := range d.nodes {
		n.stop()
	}
	if d.sentinel != nil {
		d.sentinel.stop()
	}
}

// sharedDeployment is a deployment for the whole test binary.
type sharedDeployment struct {
	once sync.Once
	d    *deployment
	err  error
}

// sharedDeployments are started on first use (a Cluster takes a second or
// two) and stopped by TestMain. Tests sharing one write under a key prefix
// of their own (isolated).
var sharedDeployments = map[kind]*sharedDeployment{single: {}, clusterKind: {}, sentinelKind: {}}

// shared returns the test binary's deployment of k.
func shared(t testing.TB, k kind) *deployment {
	t.Helper()
	s := sharedDeployments[k]
	s.once.Do(func() {
		var dir string
		if dir, s.err = os.MkdirTemp("", "redisstore-"+string(k)); s.err != nil {
			return
		}
		if s.d, s.err = launch(dir, k); s.err != nil {
			_ = os.RemoveAll(dir)
		}
	})
	if s.err != nil {
		t.Fatalf("%s: %v", k, s.err)
	}
	return s.d
}

// stopShared stops the shared deployments started and removes their dirs.
func stopShared() {
	for _, s := range sharedDeployments {
		if s.d != nil {
			s.d.stop()
			_ = os.RemoveAll(s.d.dir)
		}
	}
}

var prefixes atomic.Int64

// isolated is a key prefix no other test uses, for a shared deployment.
func isolated() redisstore.Option {
	return redisstore.WithKeyPrefix(fmt.Sprintf("t%d:", prefixes.Add(1)))
}
