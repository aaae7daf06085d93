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
// day on one account, whichever replica makes it.
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
	id, _ := sessions.Begin(ctx, "tpp-user-1")
	fmt.Println("complete:", replica2.Complete(ctx, "tpp-user-1", id))
	cur, ok, _ := sessions.Current(ctx, "tpp-user-1")
	fmt.Println("current on the first:", ok, cur == id)

	now := time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		ok, next, err := budget.Take(ctx, "xs2a:budget:4f1c", now.Add(time.Duration(i)*time.Minute), xs2a.AccessLimit, xs2a.AccessWindow)
		fmt.Println(i+1, ok, next.UTC().Format(time.RFC3339), err)
	}
	// Output:
	// complete: <nil>
	// current on the first: true true
	// 1 true 0001-01-01T00:00:00Z <nil>
	// 2 true 0001-01-01T00:00:00Z <nil>
	// 3 true 0001-01-01T00:00:00Z <nil>
	// 4 true 0001-01-01T00:00:00Z <nil>
	// 5 false 2025-03-15T09:00:00Z <nil>
}
