package xs2a

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"
)

// blockingTokens is a TokenSource that blocks in Token until released.
type blockingTokens struct {
	entered chan struct{} // gets a value each time Token is entered
	release chan struct{} // Token returns once it is closed
}

func (b *blockingTokens) Token() (*oauth2.Token, error) {
	b.entered <- struct{}{}
	<-b.release
	return &oauth2.Token{AccessToken: "late"}, nil
}

// endingContext is a context whose deadline the test decides is passed,
// by closing done: no clock is waited on.
type endingContext struct {
	context.Context
	done chan struct{}
}

func (c *endingContext) Deadline() (time.Time, bool) {
	return time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), true
}
func (c *endingContext) Done() <-chan struct{} { return c.done }
func (c *endingContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A TokenSource that never returns does not hold the call past its
// context: the call ends with the context's error when the context ends,
// whether cancelled or past its deadline, and sends nothing. Only the
// goroutine blocked in Token is left, and it ends when Token returns. Not
// parallel: goleak looks at every goroutine of the test binary.
func TestTokenSourceBoundedByTheContext(t *testing.T) {
	before := goleak.IgnoreCurrent()
	bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"accounts":[]}`))
	}}
	srv := httptest.NewServer(http.StripPrefix(testBasePath, bank))
	tokens := &blockingTokens{entered: make(chan struct{}, 1), release: make(chan struct{})}
	c, err := NewClient(srv.URL+testBasePath, testSigner(t), WithRedirectURI("https://tpp.example/cb"), WithTokenSource(tokens))
	require.NoError(t, err)

	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, func())
		want error
	}{
		{"cancelled", func() (context.Context, func()) { return context.WithCancel(context.Background()) }, context.Canceled},
		{"past its deadline", func() (context.Context, func()) {
			ctx := &endingContext{Context: context.Background(), done: make(chan struct{})}
			return ctx, func() { close(ctx.done) }
		}, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, end := tt.ctx()
			type result struct {
				resp *Response
				err  error
			}
			done := make(chan result, 1)
			go func() {
				_, resp, err := c.Accounts.List(ctx, PSU{IPAddress: "192.0.2.10"})
				done <- result{resp, err}
			}()
			<-tokens.entered // the call waits in Token
			end()
			r := <-done
			require.ErrorIs(t, r.err, tt.want)
			assert.Contains(t, r.err.Error(), "xs2a: accounts.list: getting the OAuth2 token")
			assert.Nil(t, r.resp)
			assert.Zero(t, bank.count(), "nothing sent")
		})
	}

	// The two calls left a goroutine each in Token, and nothing else.
	require.NoError(t, c.Close())
	srv.Close()
	leaked := goleak.Find(before)
	require.Error(t, leaked, "the goroutines blocked in Token")
	assert.Contains(t, leaked.Error(), "blockingTokens")
	close(tokens.release)
	goleak.VerifyNone(t, before)
}

// tokenFunc is a TokenSource of a function.
type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// A TokenSource that returns is used as before the bound: its token goes in
// Authorization, its error ends the call before anything is sent, a nil
// token is an error, and its panic goes on in the caller's goroutine.
func TestTokenSourceAnswers(t *testing.T) {
	t.Parallel()
	refused := errors.New("the gateway refused")
	for _, tt := range []struct {
		name    string
		tokens  tokenFunc
		wantErr error  // nil: the call succeeds
		auth    string // the Authorization sent
		panics  bool
	}{
		{name: "a token", tokens: func() (*oauth2.Token, error) { return &oauth2.Token{AccessToken: "t-1"}, nil }, auth: "Bearer t-1"},
		{name: "an error", tokens: func() (*oauth2.Token, error) { return nil, refused }, wantErr: refused},
		{name: "no token", tokens: func() (*oauth2.Token, error) { return nil, nil }, wantErr: errors.New("the TokenSource gave no token")},
		{name: "a panic", tokens: func() (*oauth2.Token, error) { panic("token source broke") }, panics: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"accounts":[]}`))
			}}
			_, c := newTestServer(t, bank, WithTokenSource(tt.tokens))
			call := func() error {
				_, _, err := c.Accounts.List(context.Background(), PSU{IPAddress: "192.0.2.10"})
				return err
			}
			if tt.panics {
				require.PanicsWithValue(t, "token source broke", func() { _ = call() })
				assert.Zero(t, bank.count())
				return
			}
			err := call()
			switch {
			case tt.wantErr == nil:
				require.NoError(t, err)
				assert.Equal(t, tt.auth, bank.only(t).Header.Get("Authorization"))
			case errors.Is(tt.wantErr, refused):
				require.ErrorIs(t, err, refused)
				assert.Zero(t, bank.count())
			default:
				require.ErrorContains(t, err, tt.wantErr.Error())
				assert.Zero(t, bank.count())
			}
		})
	}
}

// failingTokens fails the calls to Token that fail says, counted from 1.
type failingTokens struct {
	mu    sync.Mutex
	calls int
	fail  func(call int) bool
}

func (f *failingTokens) Token() (*oauth2.Token, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fail != nil && f.fail(f.calls) {
		return nil, errors.New("token endpoint down")
	}
	return &oauth2.Token{AccessToken: "t"}, nil
}

// then makes f fail as fail says, counting calls afresh.
func (f *failingTokens) then(fail func(call int) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls, f.fail = 0, fail
}

// A request that is never written spends none of the day's calls: a
// PSU-not-present read whose OAuth2 token cannot be had, first attempt or
// retry, leaves the budget as it was (docs/interface.md L8), so the four
// calls of the day are still there once the token endpoint is back.
func TestBudgetNotSpentWithoutAToken(t *testing.T) {
	t.Parallel()
	bank := &testBank{fn: func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // retried; its token then fails
			return
		}
		_, _ = w.Write([]byte(`{"balances":[]}`))
	}}
	srv := httptest.NewServer(http.StripPrefix(testBasePath, bank))
	t.Cleanup(srv.Close)
	tokens := &failingTokens{}
	c, err := NewClient(srv.URL+testBasePath, testSigner(t), WithRedirectURI("https://tpp.example/cb"),
		WithTokenSource(tokens), WithRetry(RetryPolicy{MaxAttempts: 2, Methods: []string{http.MethodGet}}))
	require.NoError(t, err)
	c.sleep = func(context.Context, time.Duration) error { return nil }
	absent := PSU{ID: presentPSU.ID}
	ctx := context.Background()

	tokens.then(func(int) bool { return true })
	for range 10 {
		_, _, err := c.Accounts.Balances(ctx, absent, "acc-1")
		require.ErrorContains(t, err, "token endpoint down")
	}
	assert.Zero(t, bank.count(), "nothing was written")

	// The first attempt is written and answered 503; the retry's token fails.
	tokens.then(func(call int) bool { return call == 2 })
	_, _, err = c.Accounts.Balances(ctx, absent, "acc-1")
	require.ErrorContains(t, err, "token endpoint down")
	require.Equal(t, 1, bank.count())

	// One call spent: three are left, then the budget refuses.
	tokens.then(nil)
	for range 3 {
		_, _, err := c.Accounts.Balances(ctx, absent, "acc-1")
		require.NoError(t, err)
	}
	_, _, err = c.Accounts.Balances(ctx, absent, "acc-1")
	require.ErrorIs(t, err, ErrAccessExceeded)
	assert.Equal(t, 4, bank.count())
}
