package redisstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/redisstore"
)

// A fleet shares one Redis: every replica builds its client and session
// manager over the same stores. Here the budget stops the fifth call of the
// day on one account, whichever replica makes it and whatever its clock
// says: the day runs on the Redis server's clock, and the fifth call may go
// once the first leaves it, in about 24 hours on the caller's clock.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: exampleRedis.Addr()}) // e.g. redis.NewClusterClient in production
	defer rdb.Close()
	budget := redisstore.NewBudgetStore(rdb, redisstore.WithKeyPrefix("example:"))
	sessions := xs2a.NewSessionManager(redisstore.NewSessionStore(rdb, redisstore.WithKeyPrefix("example:")), nil)
	// client, err := xs2a.NewClient(baseURL, signer, xs2a.WithBudgetStore(budget))
	ctx := context.Background()

	// Another replica, with its own connections, completes the SCA.
	rdb2 := redis.NewClient(&redis.Options{Addr: exampleRedis.Addr()})
	defer rdb2.Close()
	replica2 := xs2a.NewSessionManager(redisstore.NewSessionStore(rdb2, redisstore.WithKeyPrefix("example:")), nil)
	start, _ := sessions.Begin(ctx, "tpp-user-1", "accounts")
	id := start.SessionID
	fmt.Println("complete:", replica2.Complete(ctx, "tpp-user-1", id))
	cur, ok, _ := sessions.Current(ctx, "tpp-user-1")
	fmt.Println("current on the first:", ok, cur == id)

	// Replicas with clocks an hour apart.
	now := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		at := now.Add(time.Duration(i) * time.Hour)
		bt, err := budget.Take(ctx, "xs2a:budget:4f1c", at, xs2a.AccessLimit, xs2a.AccessWindow)
		// Next: when the first call leaves the server's window, on this
		// replica's clock.
		fmt.Println(i+1, bt.OK, bt.Remaining, bt.Next.Sub(at).Round(time.Hour), err)
	}
	// Output:
	// complete: <nil>
	// current on the first: true true
	// 1 true 3 24h0m0s <nil>
	// 2 true 2 24h0m0s <nil>
	// 3 true 1 24h0m0s <nil>
	// 4 true 0 24h0m0s <nil>
	// 5 false 0 24h0m0s <nil>
}
